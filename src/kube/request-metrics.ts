/**
 * What every request to the API server reports for `kubernetes_client_request_latency_seconds` and
 * `kubernetes_client_request_result_total`, labelled as client-go's metrics hooks label them: the
 * latency by method and URL template (client-go's `finalURLTemplate`: namespace and name replaced by
 * `{namespace}` and `{name}`, each query value by `{value}`, as Go's url package escapes them), the
 * result by status code (`<error>` when no answer came), method and host.
 * metrics/ sits above kube/, so the operator registers its recorder here.
 */
export interface RequestLatency {
  component: string;
  verb: string;
  url: string;
  seconds: number;
}

export interface RequestResult {
  component: string;
  code: string;
  method: string;
  host: string;
}

export interface RequestRecorder {
  latency(r: RequestLatency): void;
  result(r: RequestResult): void;
}

let recorder: RequestRecorder | undefined;

/** Sets (or, with undefined, removes) the process's recorder of API requests. */
export function recordRequests(r: RequestRecorder | undefined): void {
  recorder = r;
}

export function requestLatency(component: string, method: string, url: URL, startedMs: number): void {
  recorder?.latency({ component, verb: method, url: urlTemplate(url), seconds: (performance.now() - startedMs) / 1000 });
}

export function requestResult(component: string, method: string, url: URL, status: number | undefined): void {
  recorder?.result({ component, code: status === undefined ? '<error>' : String(status), method, host: url.host });
}

/** client-go's `finalURLTemplate` of a request URL. */
export function urlTemplate(url: URL): string {
  const segments = url.pathname.split('/');
  // the part after /api/VERSION or /apis/GROUP/VERSION: RESOURCE[/NAME] or namespaces/NS/RESOURCE[/NAME[/SUB]]
  const rest = segments[1] === 'api' ? 3 : segments[1] === 'apis' ? 4 : -1;
  if (rest > 0) {
    const n = segments.length - rest;
    if (segments[rest] === 'namespaces' && n >= 3) {
      segments[rest + 1] = '{namespace}';
      if (n >= 4) segments[rest + 3] = '{name}';
    } else if (n === 2) {
      segments[rest + 1] = '{name}';
    }
  }
  const path = segments.map(escapeSegment).join('/');
  if (!url.search) return `${url.protocol}//${url.host}${path}`;
  const keys = [...new Set(url.searchParams.keys())].sort();
  const query = keys.map((k) => `${encodeURIComponent(k)}=%7Bvalue%7D`).join('&');
  return `${url.protocol}//${url.host}${path}${query ? `?${query}` : ''}`;
}

/** What encodeURIComponent leaves as it is, with `:` and `@` (put back below). */
const PLAIN_SEGMENT = /^[\w.!~*'():@-]*$/;
const ESCAPED: Record<string, string> = { '{namespace}': '%7Bnamespace%7D', '{name}': '%7Bname%7D' };

/** A path segment as Go's url package escapes it (the common one, a name, as it is). */
function escapeSegment(s: string): string {
  if (PLAIN_SEGMENT.test(s)) return s;
  return ESCAPED[s] ?? encodeURIComponent(s).replace(/%3A/gi, ':').replace(/%40/g, '@');
}
