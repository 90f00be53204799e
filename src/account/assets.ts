import type { FastifyInstance } from 'fastify';
import { SETUP_SCRIPT_PATH, STYLESHEET_PATH } from './html.js';

/** Plain, readable, high-contrast; works without the stylesheet too. */
const STYLESHEET = `
:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}
body{margin:0;background:Canvas;color:CanvasText}
main{max-width:34rem;margin:2rem auto;padding:0 1rem}
label{display:block;font-weight:600}
input[type=text],input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid GrayText;border-radius:4px}
button{font:inherit;padding:.5rem 1.25rem;margin:.25rem .5rem .25rem 0;border-radius:4px;border:1px solid ButtonBorder;cursor:pointer}
button.primary{background:#0b57d0;color:#fff;border-color:#0b57d0}
:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.alert{border-left:4px solid #b3261e;padding:.5rem 1rem;background:rgba(179,38,30,.08)}
.hint{display:block;font-size:.9rem}
ul.scopes li{margin:.25rem 0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem;border-bottom:1px solid GrayText;vertical-align:top}
code{word-break:break-all}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
`;

/**
 * Moves the setup link's token from the URL's fragment (which browsers never send, so it is in
 * no log) into the form, and takes it out of the address bar.
 */
const SETUP_SCRIPT = `
(function(){var m=/(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);var f=document.getElementById('field-token');
if(m&&f){f.value=m[1];history.replaceState(null,'',location.pathname);}})();
`;

/** The account pages' only assets: one stylesheet, one script, both from this origin. */
export function registerAccountAssets(app: FastifyInstance): void {
  for (const [path, type, body] of [
    [STYLESHEET_PATH, 'text/css; charset=utf-8', STYLESHEET],
    [SETUP_SCRIPT_PATH, 'text/javascript; charset=utf-8', SETUP_SCRIPT],
  ] as const) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=3600').header('x-content-type-options', 'nosniff').type(type).send(body),
    );
  }
}
