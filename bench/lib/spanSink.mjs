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

/**
 * Spans in an ExportTraceServiceRequest: resource_spans (1) -> scope_spans (2) -> spans (2).
 */
export function countSpans(buf) {
  let spans = 0;
  for (const [rs, rsEnd] of fields(buf, 0, buf.length, 1))
    for (const [ss, ssEnd] of fields(buf, rs, rsEnd, 2)) spans += fields(buf, ss, ssEnd, 2).length;
  return spans;
}

export async function startSpanSink() {
  const totals = { requests: 0, bytes: 0, spans: 0, undecoded: 0 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      totals.requests += 1;
      totals.bytes += body.length;
      try {
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        totals.spans += countSpans(body);
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
    totals: () => ({ ...totals }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
