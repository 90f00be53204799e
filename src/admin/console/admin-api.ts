/**
 * The admin API as the console calls it: one function per route, every path written once.
 * Routes and shapes: docs/ADMIN-API.md.
 */
import { del, get, post } from './api.js';
import type { AdminRole } from './session.js';

export const ADMIN_API = '/admin/api';

export interface Me {
  email: string;
  role: AdminRole;
  csrfToken: string;
}

export const adminApi = {
  me: () => get<Me>(`${ADMIN_API}/me`),
  signIn: (body: { email: string; password: string; totp?: string }) => post<Me>(`${ADMIN_API}/session`, body),
  signOut: () => del<void>(`${ADMIN_API}/session`),
  setup: (body: { token: string; password: string }) => post<Me>(`${ADMIN_API}/setup`, body),
};
