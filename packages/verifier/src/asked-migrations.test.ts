import { describe, expect, it } from 'vitest';
import { askedMigrationProblems, askedTables, isMigrationFile } from './asked-migrations';

const read = (texts: Record<string, string>) => (file: string) => texts[file];

describe('askedMigrationProblems', () => {
  it('fails a new migration written into an applied one, or one that changes nothing', () => {
    expect(
      askedMigrationProblems({
        description: 'Add a new migration that adds an email column to users',
        created: [],
        modified: ['migrations/001_users.sql'],
        read: read({}),
      }),
    ).toHaveLength(1);
    expect(
      askedMigrationProblems({
        description: 'Create a migration that adds an email column to users',
        created: ['migrations/002_email.sql'],
        modified: [],
        read: read({ 'migrations/002_email.sql': '-- later\nSELECT 1;\n' }),
      }),
    ).toHaveLength(1);
  });

  it('passes a new migration, an edit of the migration the request names, and requests of no migration', () => {
    expect(
      askedMigrationProblems({
        description: 'Add a migration that adds an email column to users',
        created: ['migrations/002_email.sql'],
        modified: [],
        read: read({ 'migrations/002_email.sql': 'ALTER TABLE users ADD COLUMN email TEXT;\n' }),
      }),
    ).toEqual([]);
    expect(
      askedMigrationProblems({
        description: 'Fix the typo in migrations/001_users.sql',
        created: [],
        modified: ['migrations/001_users.sql'],
        read: read({}),
      }),
    ).toEqual([]);
    // Registering the new migration in the folder's index (or any file that now names it) is no edit of history.
    for (const [index, text] of [
      ['migrations/index.js', "export default ['001_users', '002_email'];\n"],
      ['migrations/list.json', '["001_users.sql", "002_email.sql"]\n'],
      ['alembic/versions/__init__.py', ''],
    ] as const)
      expect(
        askedMigrationProblems({
          description: 'Add a migration that adds an email column to users',
          created: ['migrations/002_email.sql'],
          modified: [index],
          read: read({
            'migrations/002_email.sql': 'ALTER TABLE users ADD COLUMN email TEXT;\n',
            [index]: text,
          }),
        }),
        index,
      ).toEqual([]);
    // …but an applied migration edited beside a new file that does not name it still fails.
    expect(
      askedMigrationProblems({
        description: 'Add a migration that adds an email column to users',
        created: ['migrations/002_email.sql'],
        modified: ['migrations/001_users.sql'],
        read: read({
          'migrations/002_email.sql': 'ALTER TABLE users ADD COLUMN email TEXT;\n',
          'migrations/001_users.sql': 'CREATE TABLE users (id INT, email TEXT);\n',
        }),
      }),
    ).toHaveLength(1);
    expect(isMigrationFile('db/migrate/20240101_create_posts.rb')).toBe(true);
    expect(isMigrationFile('src/migrate.ts')).toBe(false);
  });

  it('names the table and the constraints asked that a new SQL migration lacks', () => {
    const schema = { 'migrations/001_init.sql': 'CREATE TABLE users (id INT, email TEXT);\n' };
    const problems = (description: string, sql: string) =>
      askedMigrationProblems({
        description,
        created: ['migrations/002_change.sql'],
        modified: [],
        read: read({ ...schema, 'migrations/002_change.sql': sql }),
      });
    expect(askedTables('Add a migration that adds an index on users.email')).toEqual(['users']);
    expect(askedTables('Add a migration that adds a column to the orders table')).toEqual(['orders']);
    expect(askedTables('Add a migration (see db/schema.sql) for table users')).toEqual(['users']);
    expect(
      problems('Add a migration that adds an index on users.email', 'CREATE INDEX i ON orders (email);\n'),
    ).toHaveLength(1);
    expect(
      problems('Add a migration that adds an index on users.email', 'CREATE INDEX i ON users (email);\n'),
    ).toEqual([]);
    expect(
      problems('Add a migration that makes users.email unique', 'CREATE INDEX i ON users (email);\n'),
    ).toHaveLength(1);
    expect(
      problems('Add a migration that makes users.email unique', 'CREATE UNIQUE INDEX i ON users (email);\n'),
    ).toEqual([]);
    expect(
      problems(
        'Add a migration that adds a NOT NULL column age to the users table',
        'ALTER TABLE users ADD COLUMN age INT;\n',
      ),
    ).toHaveLength(1);
    expect(
      problems(
        'Add a migration that drops the NOT NULL from users.email',
        'ALTER TABLE users ALTER COLUMN email DROP DEFAULT;\n',
      ),
    ).toEqual([]);
  });
});
