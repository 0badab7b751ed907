// undici's pool module alone (src/api/transport.ts): the package has no types for its files, so they are undici's own Pool.
declare module 'undici/lib/dispatcher/pool.js' {
  import { Pool } from 'undici';
  export default Pool;
}
