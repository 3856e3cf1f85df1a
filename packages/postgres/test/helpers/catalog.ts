import type pg from 'pg'

/**
 * What the catalog says of one schema: tables and their columns, indexes,
 * constraints, functions and triggers, as sorted text lines. Two schemas
 * built the same way give the same lines (object ids are left out).
 */
export async function catalogOf (client: Pick<pg.Pool, 'query'>, schema: string): Promise<string[]> {
  const queries = [
    `select 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as line
       from information_schema.columns where table_schema = $1`,
    'select \'index \' || tablename || \' \' || indexname || \' \' || indexdef as line from pg_indexes where schemaname = $1',
    `select 'constraint ' || rel.relname || ' ' || con.conname || ' ' || pg_get_constraintdef(con.oid) as line
       from pg_constraint con join pg_class rel on rel.oid = con.conrelid join pg_namespace ns on ns.oid = rel.relnamespace where ns.nspname = $1`,
    `select 'function ' || p.proname || ' ' || pg_get_function_identity_arguments(p.oid) || ' ' || md5(p.prosrc) as line
       from pg_proc p join pg_namespace ns on ns.oid = p.pronamespace where ns.nspname = $1`,
    `select 'trigger ' || c.relname || ' ' || pg_get_triggerdef(t.oid) as line
       from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace ns on ns.oid = c.relnamespace where ns.nspname = $1 and not t.tgisinternal`
  ]
  const lines: string[] = []
  for (const text of queries) lines.push(...(await client.query<{ line: string }>(text, [schema])).rows.map((r) => r.line))
  return lines.sort()
}
