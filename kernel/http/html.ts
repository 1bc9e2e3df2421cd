/**
 * The few HTML pages the hub serves itself (`/`, `/join`, `/docs`) share one stance: nothing from
 * other origins, inline code only with a per-response nonce, never cached, framed or sent a
 * referrer.
 */

/** A fresh nonce for one response's inline script and style. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/**
 * The headers of such a page. `sources` are the page's own CSP fetch directives (after
 * `default-src 'none'`); base URI and framing are always refused, and form targets unless
 * `formAction` allows some (`'self'` for a page whose form posts to the hub).
 */
export function htmlPageHeaders(
  sources: readonly string[],
  formAction = "'none'",
): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': [
      "default-src 'none'",
      ...sources,
      "base-uri 'none'",
      `form-action ${formAction}`,
      "frame-ancestors 'none'",
    ].join('; '),
  };
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and double- or single-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
}

/** Where a person without the HarborClient desktop app gets it (its releases page). */
export const DESKTOP_APP_URL = 'https://github.com/harborclient/harborclient/releases';
