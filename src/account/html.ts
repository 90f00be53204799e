import type { FastifyReply } from 'fastify';

/** Text for HTML: every character that could open markup or end an attribute, escaped. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Markup made here from escaped parts; a plain string is text and is escaped where it is put. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** A tagged template that escapes every value but Html (and arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new Html(out);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export const STYLESHEET_PATH = '/account/assets/style.css';
export const SETUP_SCRIPT_PATH = '/account/assets/setup.js';

/**
 * The policy of every account page: nothing but this origin's stylesheet (and, on the setup
 * page, its one script), forms posting only here (or to the app the user is sent back to: a
 * browser applies form-action to the redirect that follows a post), never framed.
 */
export function pageCsp(formTargets: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    "script-src 'self'",
    // data: for the empty icon, so the browser asks for no /favicon.ico.
    "img-src 'self' data:",
    "connect-src 'none'",
    `form-action 'self'${formTargets.map((t) => ` ${t}`).join('')}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface Page {
  title: string;
  body: Html;
  /** Where the page's forms may lead besides this origin (see pageCsp). */
  formTargets?: readonly string[];
  /** Scripts of this origin the page loads (the setup page reads its link's fragment). */
  scripts?: readonly string[];
}

/** Sends a page: plain HTML, never cached, never framed, no referrer leaves it. */
export function sendPage(reply: FastifyReply, status: number, page: Page): FastifyReply {
  const scripts = (page.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`);
  const document = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${page.title} · results-api</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="${STYLESHEET_PATH}">${scripts}</head>
<body><main><h1>${page.title}</h1>
${page.body}
</main></body></html>
`;
  return reply
    .code(status)
    .header('content-security-policy', pageCsp(page.formTargets))
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin')
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(document.markup);
}

/** A message the user must notice (a refused sign-in, a mistake in a form): read out by screen readers. */
export const alertBox = (message: string | undefined): Html => (message ? html`<p class="alert" role="alert">${message}</p>` : html``);

/** A labelled text field; the label is the field's accessible name. */
export function field(input: { name: string; label: string; type?: string; autocomplete?: string; value?: string; required?: boolean; hint?: string }): Html {
  const id = `field-${input.name}`;
  const hintId = input.hint ? `${id}-hint` : undefined;
  return html`<p><label for="${id}">${input.label}</label>
<input id="${id}" name="${input.name}" type="${input.type ?? 'text'}"${input.autocomplete ? html` autocomplete="${input.autocomplete}"` : ''}${
    input.value !== undefined ? html` value="${input.value}"` : ''
  }${input.required === false ? '' : html` required`}${hintId ? html` aria-describedby="${hintId}"` : ''}>${hintId ? html`<span class="hint" id="${hintId}">${input.hint}</span>` : ''}</p>`;
}

export const hidden = (name: string, value: string): Html => html`<input type="hidden" name="${name}" value="${value}">`;
