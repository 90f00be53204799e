import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const verifier = new Webhook(process.env.WEBHOOK_SECRET!); // whsec_…
const token = process.env.RESULTS_API_TOKEN!; // a token of yours with studies:read
const seen = new Set<string>(); // use your database in production

createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    let event: { type: string; data: { sessionId?: string; links: Record<string, string> } };
    try {
      event = verifier.verify(body, req.headers as Record<string, string>) as typeof event;
    } catch {
      res.writeHead(400).end();
      return;
    }
    res.writeHead(204).end();
    const id = req.headers['webhook-id'] as string;
    if (seen.has(id)) return; // a retry of an event already handled
    seen.add(id);
    if (event.type === 'session.completed') void handleCompletedSession(event.data.links.session!);
  });
}).listen(Number(process.env.PORT ?? 3000));

async function handleCompletedSession(url: string): Promise<void> {
  // Read the session with your own token, then post its summary to Slack, Jira, …
  const answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const session = (await answer.json()) as { sessionId: string; tasks: unknown[] };
  console.log(`session ${session.sessionId} completed, ${session.tasks.length} tasks`);
}
