// SharedArrayBuffer (the pool's shared mode) needs a cross-origin isolated page: both servers send the two headers.
const crossOriginIsolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default {
  server: { headers: crossOriginIsolation },
  preview: { headers: crossOriginIsolation },
};
