// An OTLP/HTTP trace receiver for the benchmarks: takes what the services export to
// /v1/traces, answers as a collector would, and counts requests, bytes and spans. It keeps
// nothing, so a long run costs it no memory.
import http from 'node:http';
import { gunzipSync } from 'node:zlib';

/** Reads a protobuf varint at `at`: [value, next offset]. */
function varint(buf, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = buf[at++];
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
    shift += 7;
  }
}

/** The length-delimited fields numbered `field` of one protobuf message, as [start, end] pairs. */
function fields(buf, start, end, field) {
  const found = [];
  let at = start;
  while (at < end) {
    const [key, next] = varint(buf, at);
    at = next;
    const wire = key & 7;
    if (wire === 0) at = varint(buf, at)[1];
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const [length, body] = varint(buf, at);
      if (key >>> 3 === field) found.push([body, body + length]);
      at = body + length;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  return found;
}

/** The varint field numbered `field` of one protobuf message (the first), or undefined. */
function varintField(buf, start, end, field) {
  let at = start;
  while (at < end) {
    const [key, next] = varint(buf, at);
    at = next;
    const wire = key & 7;
    if (wire === 0) {
      const [value, after] = varint(buf, at);
      if (key >>> 3 === field) return value;
      at = after;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const [length, body] = varint(buf, at);
      at = body + length;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  return undefined;
}

const text = (buf, [start, end]) => buf.toString('utf8', start, end);

/** A resource's `service.name`: resource (1) -> attributes (1) -> KeyValue {key 1, value 2 {string_value 1}}. */
function serviceOf(buf, rs, rsEnd) {
  for (const resource of fields(buf, rs, rsEnd, 1))
    for (const [kv, kvEnd] of fields(buf, ...resource, 1)) {
      const [key] = fields(buf, kv, kvEnd, 1);
      if (!key || text(buf, key) !== 'service.name') continue;
      const [value] = fields(buf, kv, kvEnd, 2);
      const [string] = value ? fields(buf, ...value, 1) : [];
      return string ? text(buf, string) : '?';
    }
  return '?';
}

const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

/**
 * The spans of an ExportTraceServiceRequest (resource_spans 1 -> scope_spans 2 -> spans 2),
 * counted into `bySpan` under `<service> <kind> <name>` (span name 5, kind 6); how many.
 */
export function countSpans(buf, bySpan = new Map()) {
  let spans = 0;
  for (const [rs, rsEnd] of fields(buf, 0, buf.length, 1)) {
    const service = serviceOf(buf, rs, rsEnd);
    for (const [ss, ssEnd] of fields(buf, rs, rsEnd, 2))
      for (const [span, spanEnd] of fields(buf, ss, ssEnd, 2)) {
        spans += 1;
        const [name] = fields(buf, span, spanEnd, 5);
        const kind = KINDS[varintField(buf, span, spanEnd, 6) ?? 0] ?? '?';
        const what = `${service} ${kind} ${name ? text(buf, name) : '?'}`;
        bySpan.set(what, (bySpan.get(what) ?? 0) + 1);
      }
  }
  return spans;
}

export async function startSpanSink() {
  const totals = { requests: 0, bytes: 0, spans: 0, undecoded: 0 };
  /** Spans by `<service> <kind> <name>`: a name holds no id (route templates, topics, commands). */
  const bySpan = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      totals.requests += 1;
      totals.bytes += body.length;
      try {
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        totals.spans += countSpans(body, bySpan);
      } catch {
        totals.undecoded += 1;
      }
      // An empty ExportTraceServiceResponse: every span accepted.
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    totals: () => ({ ...totals, bySpan: Object.fromEntries([...bySpan].sort((a, b) => b[1] - a[1])) }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
