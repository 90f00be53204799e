import type { SessionDetails, SessionWithDetails } from '@results-api/client';
import { csvRecord, CSV_COLUMNS, summaryRecord, type ExportFormat } from './session-export-format.js';

/**
 * A session's details as API responses carry them (GET /api/v3/sessionResults), turned back
 * into the `details` field `sessions import` reads: the answered tasks by id with their answer
 * unwrapped from its type's key, the participant (with the name this service adds), the
 * imported group responses, and the facts only an import knows (form factor, task ordering,
 * notes, screener responses; extensions of this service, left out when the server sends none,
 * as the real service). An export with `--details` is thereby a file another results-api
 * imports as it is, losing nothing.
 */
export function importableDetails(details: SessionDetails): Record<string, unknown> {
  const participant = details.sessionParticipant;
  return {
    participant: participant
      ? {
          participantId: participant.participantId,
          ...(participant.name ? { name: participant.name } : {}),
          demographics: participant.demographicsInfo,
        }
      : null,
    taskGroups: details.taskGroups.flatMap((g) =>
      g.type === 'BALANCED_COMPARISON' && g.response && 'sequence' in g.response ? [{ taskGroupId: g.uuid, sequence: g.response.sequence }] : [],
    ),
    tasks: details.tasks.flatMap((task) => {
      const r = task.response;
      if (!r) return [];
      // The answer sits under the key of its type; the import takes the value itself.
      const answer = r.answer ? (Object.values(r.answer).find((v) => v !== null && v !== undefined) ?? null) : null;
      return [{ taskId: task.uuid, startTimeMs: r.startTimeMs, endTimeMs: r.endTimeMs, skipped: r.skipped, answer }];
    }),
    ...(details.formFactorUsed ? { formFactorUsed: details.formFactorUsed } : {}),
    ...(details.taskOrderingCondition ? { taskOrderingCondition: details.taskOrderingCondition } : {}),
    ...(details.notes ? { notes: details.notes } : {}),
    ...(details.screenerResponses?.length ? { screenerResponses: details.screenerResponses } : {}),
  };
}

/** How `sessions export --details` writes each session: its summary fields, then `details`. */
export function detailsEncoder(format: ExportFormat): { header: string; encode: (pair: SessionWithDetails) => string } {
  const columns = [...CSV_COLUMNS, 'details'] as const;
  if (format === 'csv') {
    return {
      header: csvRecord(columns),
      encode: ({ session, details }) => csvRecord([...CSV_COLUMNS.map((c) => session[c]), JSON.stringify(importableDetails(details))]),
    };
  }
  return {
    header: '',
    encode: ({ session, details }) => `${JSON.stringify({ ...summaryRecord(session), details: importableDetails(details) })}\n`,
  };
}
