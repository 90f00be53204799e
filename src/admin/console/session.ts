import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export type AdminRole = 'operator' | 'support' | 'account-admin';

/** The signed-in admin, as the console needs it. */
export interface SignedIn {
  email: string;
  role: AdminRole;
  /** For an account admin: the workspaces they administer. */
  workspaces: string[];
  signOut(): Promise<void>;
}

export const SessionContext = createContext<SignedIn | null>(null);

export function useSignedIn(): SignedIn {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSignedIn outside a signed-in console');
  return session;
}
