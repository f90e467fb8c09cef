import { describe, expect, it } from 'vitest';
import { askedRoutes, routeMismatch, routeRegistrations } from './asked-routes';

describe('askedRoutes', () => {
  it.each([
    ['Add a GET /health endpoint to src/server.js', [{ method: 'GET', path: '/health' }]],
    ['Add a `POST /users` route.', [{ method: 'POST', path: '/users' }]],
    ['Expose a /metrics endpoint', [{ path: '/metrics' }]],
    ['Add an endpoint at /api/items/:id', [{ path: '/api/items/:id' }]],
    ['Explain what GET /health does', []],
  ])('%s → %j', (description, routes) => {
    expect(askedRoutes(description)).toEqual(routes);
  });
});

describe('routeRegistrations', () => {
  it.each([
    ["app.get('/health', handler);", [{ methods: ['GET'], path: '/health' }]],
    ["router.post('/health', (ctx) => {});", [{ methods: ['POST'], path: '/health' }]],
    ["app.on('PUT', '/health', (c) => c.text('ok'));", [{ methods: ['PUT'], path: '/health' }]],
    ["server.route({ method: 'GET', url: '/health', handler });", [{ methods: ['GET'], path: '/health' }]],
    ['@app.route("/health")\ndef health(): ...', [{ methods: ['GET'], path: '/health' }]],
    ['@bp.route("/health", methods=["POST"])', [{ methods: ['POST'], path: '/health' }]],
    ['@router.delete("/items/{id}")', [{ methods: ['DELETE'], path: '/items/{id}' }]],
    ["app.use('/health', healthRouter);", [{ methods: ['*'], path: '/health' }]],
  ])('%s', (code, found) => {
    expect(routeRegistrations(code)).toEqual(found);
  });
});

describe('routeMismatch', () => {
  const before = "app.get('/', home);\n";
  const changed = (line: string) => [{ file: 'src/server.js', before, after: `${before}${line}\n` }];
  it.each([
    ["app.post('/health', h);", 'POST /health'],
    ["app.get('/healthz', h);", 'GET /healthz'],
  ])('names %s', async (line, found) => {
    expect(await routeMismatch(changed(line), { method: 'GET', path: '/health' })).toEqual([found]);
  });

  it.each([
    ["app.get('/health', h);"],
    ["app.get('/health/', h);"],
    ["app.all('/health', h);"],
    ["app.use('/health', healthRouter);"],
    ['const unrelated = 1;'],
  ])('accepts %s', async (line) => {
    expect(await routeMismatch(changed(line), { method: 'GET', path: '/health' })).toEqual([]);
  });

  it('matches path parameters written another way and routers on a prefix', async () => {
    const py = [
      {
        file: 'app/main.py',
        before: undefined,
        after: '@app.get("/items/{item_id}")\ndef item(item_id): ...\n',
      },
    ];
    expect(await routeMismatch(py, { method: 'GET', path: '/items/:id' })).toEqual([]);
    expect(
      await routeMismatch(changed("router.get('/health', h);"), { method: 'GET', path: '/api/health' }),
    ).toEqual([]);
  });

  it('leaves a route asked with no method to any method', async () => {
    expect(await routeMismatch(changed("app.post('/metrics', h);"), { path: '/metrics' })).toEqual([]);
  });
});
