import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './database-unavailable.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['reset', withCode('read ECONNRESET', 'ECONNRESET')],
    ['server shut down (57P01)', withCode('terminating connection due to administrator command', '57P01')],
    ['starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['connection exception class 08', withCode('connection failure', '08006')],
    ['too many connections', withCode('sorry, too many clients already', '53300')],
    ['pg: connection terminated', new Error('Connection terminated unexpectedly')],
    ['pg: pool timeout', new Error('timeout exceeded when trying to connect')],
    ['several addresses refused', new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], '')],
    ['wrapped', new Error('query failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') })],
    ['sqlite: locked past busy_timeout', withCode('database is locked', 'SQLITE_BUSY')],
    ['sqlite: closed under the request (shutting down)', new TypeError('The database connection is not open')],
  ])('%s: unavailable', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['a constraint violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a syntax error', withCode('syntax error at or near "SELEC"', '42601')],
    ['a plain fault', new TypeError('cannot read properties of undefined')],
    ['sqlite: a constraint violation', withCode('UNIQUE constraint failed: users.email_key', 'SQLITE_CONSTRAINT_UNIQUE')],
    ['not an error', 'ECONNREFUSED'],
  ])('%s: not unavailable (a fault, 500)', (_name, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
