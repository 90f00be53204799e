/**
 * The benchmark's data: how many sessions each test holds, and the sessions themselves,
 * generated on the fly (no objects kept) so a million rows cost seconds, not gigabytes.
 */
import { Buffer } from 'node:buffer';
import { randomFillSync } from 'node:crypto';

/** Newest session of the first test; every other time is derived from it. */
export const NEWEST_START = Date.UTC(2024, 10, 21, 12, 23, 52, 614);

/**
 * The layout of one database: `tests[0]` is the big test the list scenarios page through,
 * `tests[1]` the one the full scan reads; the rest share what is left.
 */
export function layoutOf({ totalSessions, testCount, bigTest, scanTest }) {
  const rest = testCount - 2;
  const remaining = totalSessions - bigTest - scanTest;
  if (rest < 0 || remaining < 0) throw new Error('layout: the big and scan tests do not fit in the total');
  const counts = [bigTest, scanTest];
  for (let i = 0; i < rest; i++) counts.push(Math.floor(remaining / rest) + (i < remaining % rest ? 1 : 0));
  return { totalSessions, counts };
}

/** A one-test database (the "10k-session database" the 1M one is compared with). */
export const singleTestLayout = (sessions) => ({ totalSessions: sessions, counts: [sessions] });

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const pool = Buffer.allocUnsafe(16 * 8192);
let poolAt = pool.length;

/** A random (version 4) UUID; randomness drawn in bulk, which is what makes 2M of them cheap. */
export function uuid() {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const b = pool;
  const o = poolAt;
  poolAt += 16;
  return (
    HEX[b[o]] + HEX[b[o + 1]] + HEX[b[o + 2]] + HEX[b[o + 3]] + '-' +
    HEX[b[o + 4]] + HEX[b[o + 5]] + '-' +
    HEX[(b[o + 6] & 0x0f) | 0x40] + HEX[b[o + 7]] + '-' +
    HEX[(b[o + 8] & 0x3f) | 0x80] + HEX[b[o + 9]] + '-' +
    HEX[b[o + 10]] + HEX[b[o + 11]] + HEX[b[o + 12]] + HEX[b[o + 13]] + HEX[b[o + 14]] + HEX[b[o + 15]]
  );
}

/** How many of a test's `count` sessions `forEachSession` makes COMPLETE (the ones the API lists): all but every fourth. */
export const completedCount = (count) => count - Math.ceil(count / 4);

/**
 * Calls `fn(sessionId, audienceId, status, startTime, finishTime)` for `count` sessions of
 * test number `testIndex`, oldest first (the primary-key order of the SQLite table, which
 * keeps bulk inserts appending). Sessions start a second apart; every tenth shares its
 * start time with the one before, so ties (ordered by sessionId) are on every page.
 */
export function forEachSession(testIndex, count, fn) {
  const newest = NEWEST_START - testIndex * 60_000;
  for (let i = count - 1; i >= 0; i--) {
    const slot = i - Math.floor(i / 10);
    const startTime = newest - slot * 1000;
    const incomplete = i % 4 === 0;
    fn(
      uuid(),
      i % 3 === 0 ? null : uuid(),
      incomplete ? 'INCOMPLETE' : 'COMPLETE',
      startTime,
      incomplete ? null : startTime + 60_000 + (i % 600) * 1000,
    );
  }
}

const iso = (ms) => new Date(ms).toISOString();

/** NDJSON lines for `sessions import`, written through `write(text)` in blocks. */
export function writeNdjson(testIndex, count, write) {
  let block = '';
  let lines = 0;
  forEachSession(testIndex, count, (sessionId, audienceId, status, startTime, finishTime) => {
    block +=
      `{"sessionId":"${sessionId}","audienceId":${audienceId === null ? 'null' : `"${audienceId}"`},` +
      `"status":"${status}","startTime":"${iso(startTime)}","finishTime":${finishTime === null ? 'null' : `"${iso(finishTime)}"`}}\n`;
    if (++lines === 10_000) {
      write(block);
      block = '';
      lines = 0;
    }
  });
  if (block) write(block);
}
