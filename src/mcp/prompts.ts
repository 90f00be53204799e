import { McpError, ErrorCode, type GetPromptResult, type Prompt } from '@modelcontextprotocol/sdk/types.js';

/** What an analyst asks most: the prompts only frame the work, the tools fetch what the caller may see. */
export const PROMPTS: Prompt[] = [
  {
    name: 'summarize_test_sessions',
    title: "Summarize this test's sessions",
    description: 'Read the completed sessions of one test and summarize what participants did, said and struggled with.',
    arguments: [{ name: 'testId', description: 'The test (from list_tests).', required: true }],
  },
  {
    name: 'compare_qx_scores',
    title: 'Compare QXscores across tests',
    description: 'Compare the QXscores of several tests, component by component, and explain the differences.',
    arguments: [{ name: 'testIds', description: 'Two or more test ids, separated by commas or spaces.', required: true }],
  },
];

const ID = /^[A-Za-z0-9-]{1,64}$/;

function ids(value: string | undefined, name: string, min: number): string[] {
  const list = (value ?? '').split(/[\s,]+/).filter((v) => v !== '');
  if (list.length < min || list.length > 20 || !list.every((id) => ID.test(id))) {
    throw new McpError(ErrorCode.InvalidParams, `${name} must be ${min === 1 ? 'a test id' : `${min} to 20 test ids`} (letters, digits and dashes).`);
  }
  return list;
}

const user = (text: string): GetPromptResult['messages'][number] => ({ role: 'user', content: { type: 'text', text } });

export function getPrompt(name: string, args: Record<string, string> | undefined): GetPromptResult {
  if (name === 'summarize_test_sessions') {
    const [testId] = ids(args?.testId, 'testId', 1);
    return {
      description: PROMPTS[0]!.description!,
      messages: [
        user(
          `Summarize the completed sessions of test ${testId}.\n` +
            '1. Read the plan (resource results://tests/' + testId + '/plan) and call list_sessions for the sessions, following nextCursor.\n' +
            "2. For each session call get_session for its answers and get_transcript for what was said.\n" +
            '3. Use search (with this testId) to check how often a theme recurs before calling it a pattern.\n' +
            'Report: the main findings, task by task; the pain points, each with a short quote and its session id and time in the video; ' +
            'what went well; and anything surprising. Say how many sessions each claim rests on.',
        ),
      ],
    };
  }
  if (name === 'compare_qx_scores') {
    const testIds = ids(args?.testIds, 'testIds', 2);
    return {
      description: PROMPTS[1]!.description!,
      messages: [
        user(
          `Compare the QXscores of the tests ${testIds.join(', ')}.\n` +
            'Call get_qx_scores for each test. Put the scores side by side in a table: QXscore, behavioral and attitudinal ' +
            'components, and the usability, trust, appearance and loyalty values, with the number of completed sessions each rests on. ' +
            'Then explain the largest differences, using get_session or search on the weaker test to find what participants struggled with.',
        ),
      ],
    };
  }
  throw new McpError(ErrorCode.InvalidParams, `No prompt is named ${name.slice(0, 64)}.`);
}
