export { createRunTracer, type RunTracer, type RunTracerOptions, tracerName } from './run-tracer';
