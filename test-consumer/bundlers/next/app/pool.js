'use client';
// A client component using the pool. The page's check (src/main.js, the same for every bundler) touches the
// DOM and starts workers when it loads, so it is imported once the component is mounted, never on the server.
import { useEffect } from 'react';

export default function Pool() {
  useEffect(() => {
    import('../src/main.js');
  }, []);
  return <pre id="result">running</pre>;
}
