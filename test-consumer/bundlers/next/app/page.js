import Pool from './pool.js';

export default function Page() {
  return <Pool />;
}
