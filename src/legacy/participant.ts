import type { Demographic, SessionParticipant } from '../details/session-details.js';

/**
 * The real v1 `participant.demographics` keys, and the demographic `code` of the v3 details
 * (`sessionParticipant.demographicsInfo`) each is read from: one import feeds both families.
 */
const V1_KEY_OF_CODE: Record<string, { key: string; kind: 'text' | 'list' | 'age' }> = {
  AGE: { key: 'age', kind: 'age' },
  CHILDREN: { key: 'children', kind: 'list' },
  COMPANY_SIZE: { key: 'companySize', kind: 'text' },
  COUNTRY: { key: 'country', kind: 'text' },
  EMPLOYMENT_STATUS: { key: 'employmentStatus', kind: 'text' },
  GENDER: { key: 'gender', kind: 'text' },
  INCOME: { key: 'income', kind: 'text' },
  INDUSTRY: { key: 'industry', kind: 'text' },
  JOB_FUNCTION: { key: 'jobFunction', kind: 'text' },
  SENIORITY: { key: 'seniority', kind: 'text' },
  SOCIAL_NETWORKS: { key: 'socialNetworks', kind: 'list' },
  WEB_EXPERTISE: { key: 'webExpertise', kind: 'text' },
};

/** The v3 codes the v1 demographics are read from, for the docs and the import's users. */
export const V1_DEMOGRAPHIC_CODES = Object.keys(V1_KEY_OF_CODE);

/**
 * One demographic answer as v1 gives it: text as imported; a list split at its commas (the v3
 * value separates several answers with commas); an age as whole years, when the value is one.
 */
function v1Value(kind: 'text' | 'list' | 'age', value: string): string | string[] | number | undefined {
  if (kind === 'text') return value;
  if (kind === 'list') return value.split(',').map((v) => v.trim()).filter((v) => v !== '');
  return /^\d{1,3}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/** The session's participant as v1 shows it: its name and the demographics imported under a known code. */
export function legacyParticipant(participant: SessionParticipant) {
  const demographics: Record<string, string | string[] | number> = {};
  for (const d of participant.demographics as Demographic[]) {
    const target = d.code === null ? undefined : V1_KEY_OF_CODE[d.code.toUpperCase()];
    if (!target || d.value === null || target.key in demographics) continue;
    const value = v1Value(target.kind, d.value);
    if (value !== undefined) demographics[target.key] = value;
  }
  return { ...(participant.name ? { name: participant.name } : {}), demographics };
}
