import { isFileToken } from './find-paths';

/**
 * Migrations a step was asked to add. Applied migrations are history: a database that already ran
 * `001_create_users.sql` never runs it again, so "add a migration" done by editing it changes
 * nothing there. And a new SQL migration that only selects (`SELECT 1;`) changes no schema.
 */

/** A migration file: in a migrations folder (`migrations/`, `db/migrate/`, `alembic/versions/`…) or named like one (`V2__add_email.sql`). */
const MIGRATION_FILE =
  /(?:^|\/)(?:migrations?|migrate|versions|flyway|changelogs?|changesets?)\/(?:[^/]+\/)*[^/]+\.(?:sql|rb|py|js|mjs|cjs|ts|go|php|exs|java|kt|cs|xml|ya?ml)$|(?:^|\/)V\d+(?:[._]\d+)*__\w+\.sql$/i;

/** Files of a migrations folder that list or load the migrations, not migrations themselves. */
const REGISTRY_FILE =
  /(?:^|\/)(?:index\.[cm]?[jt]s|__init__\.py|mod\.rs|env\.py|schema\.(?:rb|sql|prisma)|structure\.sql|migration_lock\.toml|[^/]*\.mako|alembic\.ini|knexfile\.[cm]?[jt]s|changelog-master\.(?:xml|ya?ml))$/i;

/** The request asks for a new migration ("Add a migration…", "Create a new Alembic migration"). */
const NEW_MIGRATION_ASKED =
  /\b(?:add|create|write|generate|make|introduce|scaffold)\s+(?:a\s+|an\s+|one\s+|the\s+)?(?:new\s+)?(?:database\s+|db\s+|schema\s+|sql\s+|knex\s+|alembic\s+|rails\s+|prisma\s+|django\s+|flyway\s+|sequelize\s+|typeorm\s+)?migrations?\b|\bnew\s+migrations?\b/i;

/** The request changes the schema or the data ("adds an email column", "create the index"). */
const SCHEMA_ASKED =
  /\b(?:columns?|tables?|index(?:es)?|constraints?|foreign\s+keys?|primary\s+keys?|views?|triggers?|schemas?|rows?|seeds?|defaults?|not\s+null|unique)\b/i;

/** SQL that changes something (DDL or DML). */
const SQL_EFFECT =
  /\b(?:create|alter|drop|rename|insert|update|delete|truncate|grant|revoke|comment\s+on|merge|upsert|replace)\b/i;

/** Constraints a request can ask a migration for, and how SQL spells each. */
const CONSTRAINTS: readonly { asked: RegExp; sql: RegExp; name: string }[] = [
  {
    asked: /\bnot[\s-]+null(?:able)?\b|\bnon[\s-]?null(?:able)?\b|\brequired\s+column\b/i,
    sql: /\bnot\s+null\b/i,
    name: 'NOT NULL',
  },
  { asked: /\bunique\b/i, sql: /\bunique\b/i, name: 'UNIQUE' },
  { asked: /\bprimary\s+key\b/i, sql: /\bprimary\s+key\b/i, name: 'PRIMARY KEY' },
  {
    asked: /\bforeign\s+key\b|\breferenc\w*\b/i,
    sql: /\breferences\b|\bforeign\s+key\b/i,
    name: 'a foreign key',
  },
];

const NOT_TABLES = new Set([
  'a',
  'an',
  'the',
  'new',
  'this',
  'that',
  'same',
  'its',
  'their',
  'each',
  'every',
  'join',
  'lookup',
  'sql',
  'database',
  'db',
  'to',
  'in',
  'of',
  'on',
  'for',
  'with',
  'and',
  'or',
  'that',
  'which',
  'from',
  'into',
  'is',
  'as',
  'so',
  'by',
  'at',
]);

/**
 * The tables a request names as where the change goes: "to the orders table", "table users",
 * "on users.email" (a `table.column`; file names are left out).
 *
 * @example
 * askedTables('Add an index on users.email'); // ['users']
 */
export function askedTables(description: string): string[] {
  const tables = new Set<string>();
  const named = [
    ...description.matchAll(/\b(?:the\s+)?[`'"]?(\w+)[`'"]?\s+tables?\b/gi),
    ...description.matchAll(/\btables?\s+(?:named\s+|called\s+)?[`'"]?(\w+)/gi),
  ];
  for (const match of named) {
    const table = (match[1] ?? '').toLowerCase();
    if (table !== '' && !NOT_TABLES.has(table) && !/^\d/.test(table)) tables.add(table);
  }
  for (const match of description.matchAll(
    /(?<![\w./-])[`'"]?([a-z_]\w*)\.([a-z_]\w*)[`'"]?(?![\w/-]|\.\w)/gi,
  )) {
    const table = (match[1] ?? '').toLowerCase();
    const column = (match[2] ?? '').toLowerCase();
    if (table.length < 2 || column.length < 2 || isFileToken(`${table}.${column}`)) continue;
    if (!NOT_TABLES.has(table)) tables.add(table);
  }
  return [...tables];
}

/**
 * What a new SQL migration's statements (comments left out) lack of the request: the table it
 * names, the constraints it asks (NOT NULL, UNIQUE…).
 */
function missingFromSql(description: string, code: string): string[] {
  const missing: string[] = [];
  const tables = askedTables(description);
  const mentions = (table: string) => new RegExp(`(?<![\\w$])${table}(?![\\w$])`, 'i').test(code);
  if (tables.length > 0 && !tables.some(mentions)) missing.push(`the ${tables.join(' or ')} table`);
  // "Drop the NOT NULL on users.email": the constraint named is what goes.
  const removing = /\b(?:drop|remove|delete|relax|loosen)\w*|\ballow\s+nulls?\b/i.test(description);
  for (const constraint of CONSTRAINTS)
    if (!removing && constraint.asked.test(description) && !constraint.sql.test(code))
      missing.push(constraint.name);
  return missing;
}

/** What {@link askedMigrationProblems} needs. */
export interface AskedMigrationsInput {
  description: string;
  created: readonly string[];
  modified: readonly string[];
  read(file: string): string | undefined;
}

/** Whether a path is a migration file. */
export function isMigrationFile(file: string): boolean {
  return MIGRATION_FILE.test(file);
}

/**
 * What is wrong with the migrations of a step asked to add one: existing migrations it edited
 * that the request does not name (the new migration written into history), and new SQL
 * migrations that change nothing (only comments and `SELECT`s). Empty when no new migration was
 * asked for.
 */
export function askedMigrationProblems(input: AskedMigrationsInput): string[] {
  if (!NEW_MIGRATION_ASKED.test(input.description)) return [];
  const problems: string[] = [];
  const named = (file: string) => {
    const base = file.split('/').pop() ?? file;
    const stem = base.replace(/\.[^.]+$/, '');
    return (
      input.description.includes(file) || input.description.includes(base) || input.description.includes(stem)
    );
  };
  // The new migrations' names: a file that now names one registers it (a migrations index, a
  // list of versions), it is not history rewritten.
  const createdStems = input.created
    .filter(isMigrationFile)
    .map((file) => (file.split('/').pop() ?? file).replace(/\.[^.]+$/, ''))
    .filter((stem) => stem.length >= 3);
  const registers = (file: string) => {
    if (REGISTRY_FILE.test(file)) return true;
    const text = input.read(file);
    return text !== undefined && createdStems.some((stem) => text.includes(stem));
  };
  const edited = input.modified.filter((file) => isMigrationFile(file) && !named(file) && !registers(file));
  if (edited.length > 0)
    problems.push(
      `It was asked to add a new migration but edited existing ${edited.length === 1 ? 'migration' : 'migrations'} ${edited
        .slice(0, 3)
        .join(
          ', ',
        )} instead: a database that already applied ${edited.length === 1 ? 'it' : 'them'} never runs the change.`,
    );
  if (SCHEMA_ASKED.test(input.description))
    for (const file of input.created) {
      if (!isMigrationFile(file) || !/\.sql$/i.test(file)) continue;
      const text = input.read(file);
      if (text === undefined) continue;
      const code = text.replace(/--[^\n]*/g, ' ').replace(/\/\*[\s\S]*?\*\//g, ' ');
      // Only comments: the hollow check's "holds only comments" says so already.
      if (code.trim() !== '' && !SQL_EFFECT.test(code)) {
        problems.push(
          `The new migration ${file} changes nothing: it has no statement that creates, alters or writes anything.`,
        );
        continue;
      }
      const missing = code.trim() === '' ? [] : missingFromSql(input.description, code);
      if (missing.length > 0)
        problems.push(
          `The new migration ${file} was asked for ${missing.join(' and ')}, but its statements have no such thing.`,
        );
    }
  return problems;
}
