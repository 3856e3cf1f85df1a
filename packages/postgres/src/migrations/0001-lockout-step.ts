import type { SqlNames } from '../names.js'

// The lockout rules of @fastify-gatehouse/auth (afterClaim, afterFailure,
// afterRefund in lockout-policy.ts), as one plpgsql function that
// PostgresLockoutStore calls with one `select` per claim, failure or
// refund. It locks the key's row (FOR UPDATE, or the insert of a new one)
// for the rest of the call, so attempts on any number of instances are
// claimed and settled one at a time; the Redis store runs the same steps
// as Lua (packages/redis/src/lockout-scripts.ts). Times are the caller's
// (D-REDIS-03); the cap and the claim lifetime come in as arguments, so
// the rules' constants live in the code only.
//
// Arguments: $1 step ('claim' | 'failure' | 'refund'), $2 key, $3 now (ms),
// $4 maxAttempts, $5 backoff (s), $6 resetAfter (s), $7 the longest lock
// (s), $8 how long a claim holds its place (ms). Answers the seconds to
// wait (claim: 0 = go ahead), the seconds the key is now locked (failure),
// or 0 (refund).
//
// A row whose expires_at has passed is read as no row, as Redis would have
// dropped it; a state that holds nothing is deleted, not kept.
// D-POSTGRES-10: a function, not one upsert.

/** The `create function` of the lockout step, for the schema and prefix in `names`. */
export function lockoutStepFunction (n: SqlNames): { create: string, drop: string } {
  const fn = n.table('lockout_step')
  const lockout = n.table('lockout')
  const args = 'text, text, bigint, integer, double precision, double precision, double precision, bigint'
  return {
    create: `create function ${fn}(${args}) returns integer language plpgsql as $$
declare
  step alias for $1;
  k alias for $2;
  now_ms alias for $3;
  max_attempts alias for $4;
  backoff alias for $5;
  reset_ms double precision := $6 * 1000;
  cap alias for $7;
  claim_ttl alias for $8;
  f integer;
  l bigint;
  t bigint;
  q bigint[];
  e bigint;
  existed boolean;
  lock_s double precision;
  answer integer := 0;
begin
  loop
    select failures, locked_until, last_failure, claims, expires_at into f, l, t, q, e
      from ${lockout} where key = k for update;
    existed := found;
    if not existed or e <= now_ms then
      f := 0; l := 0; t := 0; q := '{}';
    end if;
    -- The state as it stands now: lapsed claims dropped; failures forgotten
    -- after a quiet resetAfter from the later of the last failure and the lock's end.
    q := array(select c from unnest(q) with ordinality as u(c, i) where now_ms - c <= claim_ttl order by i);
    if f > 0 and l <= now_ms and now_ms - greatest(t, l) > reset_ms then
      f := 0; l := 0;
    end if;
    if step = 'claim' then
      if l > now_ms then
        return ceil((l - now_ms)::double precision / 1000);
      end if;
      if cardinality(q) >= (case when f < max_attempts then max_attempts - f else 1 end) then
        -- Refused, not counted: the wait is the lock the claims in flight would start.
        lock_s := case when f + cardinality(q) < max_attempts then 0
          else least(cap, backoff * power(2::double precision, least(f + cardinality(q) - max_attempts, 30))) end;
        return greatest(1, ceil(lock_s));
      end if;
      q := q || now_ms;
    elsif step = 'failure' then
      -- Settles the oldest claim (which one is not known).
      q := q[2:];
      f := f + 1;
      t := now_ms;
      lock_s := case when f < max_attempts then 0
        else least(cap, backoff * power(2::double precision, least(f - max_attempts, 30))) end;
      if lock_s > 0 then
        l := greatest(l, floor(now_ms + lock_s * 1000)::bigint);
      end if;
      answer := case when l > now_ms then ceil((l - now_ms)::double precision / 1000) else 0 end;
    elsif step = 'refund' then
      q := q[2:];
    else
      raise exception 'unknown lockout step %', step using errcode = '22023';
    end if;
    if f = 0 and cardinality(q) = 0 and l <= now_ms then
      if existed then
        delete from ${lockout} where key = k;
      end if;
      return answer;
    end if;
    -- Kept while locked, while a claim holds its place, and for resetAfter
    -- after the later of the lock's end and the last failure.
    e := now_ms + greatest(l - now_ms, 0) + ceil(greatest(reset_ms, claim_ttl))::bigint + 1000;
    if existed then
      update ${lockout} set failures = f, locked_until = l, last_failure = t, claims = q, expires_at = e where key = k;
      return answer;
    end if;
    insert into ${lockout} (key, failures, locked_until, last_failure, claims, expires_at)
      values (k, f, l, t, q, e) on conflict (key) do nothing;
    if found then
      return answer;
    end if;
    -- Another call created the key meanwhile (and has committed): start over on its row.
  end loop;
end
$$`,
    drop: `drop function ${fn}(${args})`
  }
}
