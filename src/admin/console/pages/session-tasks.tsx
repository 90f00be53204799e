import type { PlanTask, SessionTask, SessionTaskGroup } from '../admin-api.js';
import { planTasksOf, readableAnswer, type ReadableAnswer } from '../answers.js';
import { TableHead, formatMs } from '../ui.js';

const BAND_RANGE = { detractor: '0–6', passive: '7–8', promoter: '9–10' } as const;

/** An answer as a person reads it: a rating on its scale, an NPS with its band, choices as a list, text as text. */
export function AnswerView({ answer }: { answer: ReadableAnswer }) {
  switch (answer.kind) {
    case 'none':
      return <>—</>;
    case 'skipped':
      return <span class="hint">Skipped</span>;
    case 'done':
      return <>Done</>;
    case 'text':
      return <span class="answer-text">{answer.text}</span>;
    case 'success':
      return <>{answer.success ? 'Completed' : 'Not completed'}</>;
    case 'rating':
      return (
        <>
          <strong>{answer.value}</strong>{' '}
          <span class="hint">
            on a scale of {answer.min}
            {answer.lowerLabel ? ` (${answer.lowerLabel})` : ''} to {answer.max}
            {answer.upperLabel ? ` (${answer.upperLabel})` : ''}
          </span>
        </>
      );
    case 'nps':
      return (
        <>
          <strong>{answer.value}</strong> <span class={`nps-band ${answer.band}`}>{answer.band}</span>{' '}
          <span class="hint">
            (NPS 0–10; {answer.band}s answer {BAND_RANGE[answer.band]})
          </span>
        </>
      );
    case 'choices':
      return answer.ranked ? (
        <ol class="answer-list">
          {answer.items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ol>
      ) : (
        <ul class="answer-list">
          {answer.items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      );
    case 'rows':
      return (
        <dl class="answer-rows">
          {answer.rows.map(([row, choice]) => (
            <div key={row}>
              <dt>{row}</dt>
              <dd>{choice}</dd>
            </div>
          ))}
        </dl>
      );
  }
}

export function TaskTable({ tasks, plan }: { tasks: SessionTask[]; plan: PlanTask[] | undefined }) {
  if (tasks.length === 0) return <p class="empty">The test has no plan: no tasks to show.</p>;
  const planTasks = planTasksOf(tasks, plan);
  return (
    <table aria-labelledby="tasks-heading">
      <TableHead columns={['#', 'Task', 'Type', 'Answer', 'When']} />
      <tbody>
        {tasks.map((t, i) => (
          <tr key={t.uuid}>
            <td>{i + 1}</td>
            <td>{t.text}</td>
            <td>{t.type}</td>
            <td class="answer">
              <AnswerView answer={readableAnswer(t, planTasks[i])} />
            </td>
            <td>{t.response?.startTimeMs != null ? `${formatMs(t.response.startTimeMs)}–${t.response.endTimeMs != null ? formatMs(t.response.endTimeMs) : '?'}` : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function TaskGroupTable({ groups }: { groups: SessionTaskGroup[] }) {
  if (groups.length === 0) return <p class="empty">No task groups.</p>;
  return (
    <table aria-labelledby="groups-heading">
      <TableHead columns={['Group', 'Type', 'Result']} />
      <tbody>
        {groups.map((g) => (
          <tr key={g.uuid}>
            <td class="mono">{g.uuid}</td>
            <td>{g.type}</td>
            <td>{!g.response ? '—' : 'score' in g.response ? `QXscore ${g.response.score}` : `sequence ${g.response.sequence}`}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
