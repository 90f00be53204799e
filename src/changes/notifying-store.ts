import type { Store } from '../store/store.js';
import type { Change, ChangeFeed } from './change-feed.js';

/** Which change each mutation announces once it has committed. */
const CHANGE_OF: Partial<Record<keyof Store, (args: unknown[]) => Change>> = {
  createUser: () => ({ topic: 'access' }),
  setUserStatus: () => ({ topic: 'access' }),
  createCredential: () => ({ topic: 'access' }),
  addCredentialSecret: () => ({ topic: 'access' }),
  retirePreviousSecrets: () => ({ topic: 'access' }),
  revokeCredential: () => ({ topic: 'access' }),
  createWorkspace: () => ({ topic: 'access' }),
  addMember: () => ({ topic: 'access' }),
  removeMember: () => ({ topic: 'access' }),
  createTest: () => ({ topic: 'access' }),
  revokeAccessToken: () => ({ topic: 'access' }),
  importSessions: (args) => ({ topic: 'sessions', testId: args[0] as string }),
  importSessionStream: (args) => ({ topic: 'sessions', testId: args[0] as string }),
  addSigningKey: () => ({ topic: 'keys' }),
};

/**
 * The store, announcing every committed mutation on the change feed. Whoever changes data
 * (a server process or a CLI command) therefore tells every process caching it.
 */
export function notifyingStore(store: Store, feed: ChangeFeed): Store {
  // Built once per method, so the hot read path pays a map lookup, not a bind per call.
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      let method = methods.get(property);
      if (!method) {
        const changeOf = CHANGE_OF[property as keyof Store];
        const fn = value as (...a: unknown[]) => Promise<unknown>;
        method = changeOf
          ? async (...args: unknown[]) => {
              const result = await fn.apply(target, args);
              await feed.publish(changeOf(args));
              return result;
            }
          : fn.bind(target);
        methods.set(property, method);
      }
      return method;
    },
  });
}
