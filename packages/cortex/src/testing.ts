export {
  type ConformanceCase,
  type RunStoreConformanceOptions,
  runStoreConformance,
} from './run-store-conformance';
