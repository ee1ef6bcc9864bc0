/**
 * The PostgreSQL side of the test databases: every test file's database is created from one
 * migrated template database (`create database … template …`, ~60 ms) instead of being
 * migrated itself (~230 ms of DDL). The template's name carries the stamp of the migrations
 * (src/storage/pglite-template.ts), so a changed migration gets a new one.
 */
import pg from 'pg';
import { openDatabase } from '../../src/storage/db.js';
import { templateStamp } from '../../src/storage/pglite-template.js';
import { sqlStateOf } from '../../src/storage/sql-state.js';

const PREFIX = 'pa_test_template_';

export const pgTemplateName = (): string => `${PREFIX}${templateStamp().slice(0, 16)}`;

export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export async function adminQuery<T extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** Makes the current template when missing (built under a name of its own, then renamed); drops stale ones. */
export async function ensurePgTemplate(url: string): Promise<void> {
  const name = pgTemplateName();
  const existing = await adminQuery<{ datname: string }>(url, `select datname from pg_database where datname like '${PREFIX}%'`);
  for (const { datname } of existing) {
    // one being built is another run's; one in use by another run fails to drop and stays until the next run
    if (datname !== name && !datname.includes('_build_')) await adminQuery(url, `drop database if exists ${datname}`).catch(() => undefined);
  }
  if (existing.some((d) => d.datname === name)) return;
  const building = `${name}_build_${process.pid}`;
  await adminQuery(url, `drop database if exists ${building}`);
  await adminQuery(url, `create database ${building}`);
  const database = await openDatabase({ databaseUrl: withDatabase(url, building), pgliteDir: 'memory://', poolMax: 1 });
  await database.close();
  try {
    await adminQuery(url, `alter database ${building} rename to ${name}`);
  } catch (error) {
    await adminQuery(url, `drop database if exists ${building}`);
    if (sqlStateOf(error) !== '42P04') throw error; // 42P04: a concurrent run made it first
  }
}
