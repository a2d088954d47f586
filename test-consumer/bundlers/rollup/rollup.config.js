// Rollup's usual setup for an app: node-resolve finds packages in node_modules (through their exports maps).
import { nodeResolve } from '@rollup/plugin-node-resolve';

export default {
  input: 'src/main.js',
  output: { dir: 'public', format: 'es' },
  plugins: [nodeResolve()],
};
