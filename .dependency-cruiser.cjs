/**
 * The layers of src/, from the bottom up, declared once. A module may import from its own
 * layer and the layers below it, never from a layer above, and no import may close a circle
 * (type-only imports count: a circle of types is a circle a reader has to untangle too).
 * `npm run lint` runs this; docs/ARCHITECTURE.md#layers says what each layer is for.
 */
const LAYERS = [
  // The vocabulary everything shares: configuration, time, versions, errors, scope names.
  { name: 'foundation', path: '^src/(clock|config|version|errors|iso-time|scope-names)\\.ts$' },
  // Knowing only the foundation: outages, metrics, the database-unavailable signal.
  { name: 'observability', path: '^src/observability/' },
  // Plumbing that knows no domain: the change feed and its caches, HTTP mechanics (error
  // rendering, rate limits, logging), the Redis connection and what is shared through it.
  { name: 'platform', path: '^src/(changes|http|redis)/' },
  // One repository per domain over one database seam, both engines.
  { name: 'store', path: '^src/store/' },
  // Who may see what, the authorization servers, sign-in checks, and each domain with its
  // routes (sign-in/ and webhooks/ arrive with issues 34 and 35).
  {
    name: 'domain',
    path: '^src/(access|oauth|sign-in|docs|plans|imports|details|results|transcripts|media|clips|legacy|jobs|webhooks|health|search|mcp)/',
  },
  // Use cases the admin API, the CLI and the account pages run, written once over the store.
  { name: 'operations', path: '^src/operations/' },
  // A user's account pages, served by the public app (issue 34).
  { name: 'account', path: '^src/account/' },
  // Assembles the public app: the route table, buildApp, the runtime the server and CLI share.
  { name: 'app', path: '^src/(app|api-routes|runtime)\\.ts$' },
  // The admin listener: its API, sign-in and the console.
  { name: 'admin', path: '^src/admin/' },
  // What runs it all: serve (listeners, cluster, job runner), the CLI, the SDK re-export.
  { name: 'entry points', path: '^src/(serve|cli)/|^src/client\\.ts$' },
];

// One rule per layer (no-upward-import-from-store, …), so the message names the layer.
const upwardImports = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `no-upward-import-from-${layer.name.replace(/ /g, '-')}`,
  comment:
    `The ${layer.name} layer may not import from a layer above it (${LAYERS.slice(index + 1)
      .map((above) => above.name)
      .join(', ')}). ` + 'Move the shared code down to where both can use it, or pass it in (docs/ARCHITECTURE.md#layers).',
  severity: 'error',
  // A unit test sits beside its module and may reach up for its fixtures; nothing imports a test.
  from: { path: layer.path, pathNot: '\\.test\\.tsx?$' },
  to: { path: LAYERS.slice(index + 1).map((above) => above.path) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upwardImports,
    {
      name: 'no-circular',
      comment: 'This import closes a circle of modules: break it by moving what both need into a module neither imports back.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-unlayered-module',
      comment: 'Every module of src/ belongs to a layer: add its folder to LAYERS in .dependency-cruiser.cjs.',
      severity: 'error',
      from: { path: '^src/', pathNot: [...LAYERS.map((layer) => layer.path), '\\.test\\.tsx?$'] },
      to: {},
    },
  ],
  options: {
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
    doNotFollow: { path: 'node_modules' },
  },
};
