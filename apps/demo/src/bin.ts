import { main } from './cli/main';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // main reports every error itself; this is the last resort if writing the report failed.
    console.error(error);
    process.exitCode = 1;
  },
);
