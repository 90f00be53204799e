import type { Static } from '@sinclair/typebox';
import type { Actor, User } from '../store/store.js';
import type { OperationDeps } from './deps.js';
import { userView, type UserView } from './views.js';

/** API users, identified by email. Shared by `results-api users ...` and the admin API. */

export const createUser = async (d: OperationDeps, email: string, by: Actor): Promise<Static<typeof UserView>> =>
  userView(await d.store.credentials.createUser(email, by));

export const listUsers = async (d: OperationDeps): Promise<Static<typeof UserView>[]> => (await d.store.credentials.listUsers()).map(userView);

export const setUserStatus = async (d: OperationDeps, email: string, status: User['status'], by: Actor): Promise<Static<typeof UserView>> =>
  userView(await d.store.credentials.setUserStatus(email, status, by));
