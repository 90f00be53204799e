import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ADMIN_ROLES, type Admin } from '../store/admins.js';
import { isoTime } from '../iso-time.js';

/** Schemas of the admin API: each validates, types, serializes and documents one shape. */

export const Problem = Type.Object(
  {
    type: Type.String({ description: 'urn:results-api:admin:<code>' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String({ description: 'What was wrong, in a sentence.' }),
    errors: Type.Optional(Type.Array(Type.String(), { description: 'One line per problem, when there are several.' })),
  },
  { title: 'AdminProblem', description: 'An RFC 9457 problem.' },
);

export const Role = Type.Union(
  ADMIN_ROLES.map((r) => Type.Literal(r)),
  { description: 'operator: everything; support: API users and credentials; account-admin: members and tests of the workspaces assigned to them.' },
);

export const AdminView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    role: Role,
    passwordSet: Type.Boolean({ description: 'False until the setup link has been used.' }),
    totpEnabled: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Admin' },
);
export const adminView = (a: Admin): Static<typeof AdminView> => ({
  id: a.id,
  email: a.email,
  role: a.role,
  passwordSet: a.passwordSet,
  totpEnabled: a.totpEnabled,
  createdAt: isoTime(a.createdAt),
});

export const Me = Type.Object(
  {
    admin: AdminView,
    workspaces: Type.Array(Type.String({ format: 'uuid' }), { description: 'The workspaces an account admin administers (empty for other roles).' }),
    csrfToken: Type.Union([Type.String(), Type.Null()], {
      description: 'Send it as X-CSRF-Token with every POST, PUT, PATCH or DELETE made with the session cookie; null for an admin API token.',
    }),
  },
  { title: 'AdminMe' },
);

export const Email = Type.String({ minLength: 3, maxLength: 254, description: 'An email address.' });
export const Uuid = Type.String({ format: 'uuid' });
/** A name or note: not blank, no control characters, at most `max` characters. */
export const Text = (max: number) =>
  Type.String({ minLength: 1, maxLength: max, pattern: '^[^\\u0000-\\u001f\\u007f]*\\S[^\\u0000-\\u001f\\u007f]*$', description: `1-${max} printable characters.` });
export const Password = Type.String({ minLength: 1, maxLength: 1024 });

export const SignInBody = Type.Object(
  {
    email: Email,
    password: Password,
    totpCode: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'The current code of the authenticator app, when TOTP is on.' })),
  },
  { additionalProperties: false },
);
export type SignInBody = Static<typeof SignInBody>;

export const SetupBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The token in the setup link (after #token=).' }),
    password: Password,
  },
  { additionalProperties: false },
);
export type SetupBody = Static<typeof SetupBody>;

export const TotpEnrolment = Type.Object(
  {
    secret: Type.String({ description: 'Base32 secret, for apps that cannot scan the URI.' }),
    uri: Type.String({ description: 'otpauth:// URI (show it as a QR code).' }),
  },
  { title: 'TotpEnrolment' },
);
export const TotpConfirmBody = Type.Object({ code: Type.String({ pattern: '^[0-9]{6}$' }) }, { additionalProperties: false });

/** A JSON success response and the problems an admin route may answer with. */
export function adminResponses(ok: Record<number, TSchema | null>, problems: number[] = []): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const [status, schema] of Object.entries(ok)) out[Number(status)] = schema ?? { type: 'null', description: 'No content.' };
  for (const status of [400, 401, 403, 429, 503, ...problems]) out[status] = { ...Problem, description: 'A refusal (problem details).' };
  return out;
}
