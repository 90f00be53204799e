/**
 * A browser without a browser, for the account pages over real HTTP: keeps cookies, follows
 * nothing by itself, and reads a page's form token. The Chromium suites drive the real thing.
 */
export class FormBrowser {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly base: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.request('GET', path, undefined, headers);
  }

  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    return this.request('POST', path, new URLSearchParams(fields).toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers });
  }

  /** The value of the hidden form-token field of the last page that had one. */
  formToken(page: Page): string {
    const match = /name="csrf" value="([^"]+)"/.exec(page.body);
    if (!match) throw new Error(`no form token on the page (status ${page.status}): ${page.body.slice(0, 300)}`);
    return match[1]!;
  }

  private async request(method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<Page> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(new URL(path, this.base), {
      method,
      body,
      redirect: 'manual',
      headers: { ...this.headers, ...(cookie ? { cookie } : {}), ...headers },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, body: await response.text(), location: response.headers.get('location') ?? undefined };
  }
}

export interface Page {
  status: number;
  headers: Headers;
  body: string;
  location: string | undefined;
}
