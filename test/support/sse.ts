import http from 'node:http';

/** An open server-sent-events response, read as text as it arrives. */
export interface Stream {
  status: number;
  headers: http.IncomingHttpHeaders;
  text(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  close(): void;
}

/** Opens GET `path` on 127.0.0.1:`port`; resolves once the status and headers are in. */
export function openStream(port: number, path: string, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers }, (res) => {
      let buf = '';
      const waiters: (() => void)[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        for (const w of waiters.splice(0)) w();
      });
      resolve({
        status: res.statusCode!,
        headers: res.headers,
        text: () => buf,
        waitFor(pattern, timeoutMs = 20_000) {
          return new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`no ${pattern} in:\n${buf.slice(-2000)}`)), timeoutMs);
            const check = () => {
              const m = buf.match(pattern);
              if (m) {
                clearTimeout(timer);
                ok(m[0]);
              } else waiters.push(check);
            };
            check();
          });
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}
