//! The Lua scripts, each with its contract (keys, arguments, reply) above
//! its text. Each touches the keys of one hash slot only (one room's, or
//! one other key), so it runs on a Redis Cluster too.

use deadpool_redis::redis::Script;

/// The quick-match scripts' choice of partner, `crate::pick_partner` in
/// Lua: ARGV[2] the player, ARGV[3] his rating, ARGV[4] his since ms,
/// ARGV[5] now ms, ARGV[6..8] the window (start, per second, open after
/// ms). `pick(items)` → the JSON of the queued ticket (oldest first) of
/// another player whose gap the window admits at the longer of the two
/// waits, the closest in rating, the oldest on a tie; nil if none.
/// Unreadable entries are skipped, not fatal; a ticket without a rating
/// reads 1500, without a since 0 (as serde's defaults). The figures are
/// integers under 2^53 (ratings, ms), exact in Lua's doubles.
const PICK: &str = r"
local function pick(items)
  local me, rating, since = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
  local now, start, per_s, open = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
  local best, best_gap
  for _, raw in ipairs(items) do
    local ok, t = pcall(cjson.decode, raw)
    if ok and type(t) == 'table' and type(t.player) == 'string' and t.player ~= me then
      local gap = math.abs((tonumber(t.rating) or 1500) - rating)
      local waited = math.max(0, now - math.min(since, tonumber(t.since_ms) or 0))
      if (waited >= open or gap * 1000 <= start * 1000 + per_s * waited)
        and (not best or gap < best_gap) then
        best, best_gap = raw, gap
      end
    end
  end
  return best
end";

/// The Lua scripts; each touches the keys of one hash slot only.
pub(super) struct Scripts {
    pub(super) claim: Script,
    pub(super) release: Script,
    pub(super) release_idle: Script,
    pub(super) save: Script,
    pub(super) append: Script,
    pub(super) load: Script,
    pub(super) register: Script,
    pub(super) match_or_wait: Script,
    pub(super) rematch: Script,
    pub(super) cancel: Script,
    pub(super) cas: Script,
    pub(super) queue_archive: Script,
    pub(super) archived: Script,
    pub(super) archived_many: Script,
    pub(super) claim_drain: Script,
    pub(super) release_drain: Script,
    pub(super) queue_notice: Script,
    pub(super) take_notices: Script,
    pub(super) requeue_notice: Script,
    pub(super) claim_send: Script,
    pub(super) pause_sends: Script,
    pub(super) show: Script,
    pub(super) unshow: Script,
    pub(super) shown: Script,
    pub(super) save_tournament: Script,
    pub(super) ack_tournament: Script,
}

impl Scripts {
    pub(super) fn new() -> Scripts {
        Scripts {
            // KEYS[1] room, KEYS[2] its log, KEYS[3] its records; ARGV:
            // owner read before, me. The owner must still be what the
            // caller checked (liveness is another slot, so it was checked
            // outside). → {epoch, entry JSON if the room was due for
            // deletion (its invite, another slot, is kept by the caller),
            // else ''}; {-1, ''} raced.
            claim: Script::new(
                r"
local cur = redis.call('HGET', KEYS[1], 'owner') or ''
if cur ~= ARGV[1] then return {-1, ''} end
local e = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
redis.call('HSET', KEYS[1], 'owner', ARGV[2])
local entry = ''
if redis.call('PTTL', KEYS[1]) >= 0 then
  entry = redis.call('HGET', KEYS[1], 'entry') or ''
  for i = 1, 3 do redis.call('PERSIST', KEYS[i]) end
end
return {e, entry}",
            ),
            // KEYS[1] room, KEYS[2] its log, KEYS[3] its records; ARGV: me,
            // epoch, keep ms. → the entry JSON ('' fenced): its invite
            // (another slot) expires with it, set by the caller.
            release_idle: Script::new(
                r"
local owner = redis.call('HGET', KEYS[1], 'owner')
local ep = redis.call('HGET', KEYS[1], 'epoch')
if owner ~= ARGV[1] or ep ~= ARGV[2] then return '' end
redis.call('HSET', KEYS[1], 'owner', '')
redis.call('HINCRBY', KEYS[1], 'epoch', 1)
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return redis.call('HGET', KEYS[1], 'entry') or ''",
            ),
            // KEYS[1] room; ARGV: me, epoch.
            release: Script::new(
                r"
local owner = redis.call('HGET', KEYS[1], 'owner')
local ep = redis.call('HGET', KEYS[1], 'epoch')
if owner ~= ARGV[1] or ep ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'owner', '')
redis.call('HINCRBY', KEYS[1], 'epoch', 1)
return 1",
            ),
            // KEYS[1] room, KEYS[2] its log (cleared: the snapshot holds
            // it now); ARGV: me, epoch, version, snap JSON, entry JSON,
            // inputs held (`n`). → -1 fenced, -2 stale version, 1
            // ownership re-established, 0 ok.
            save: Script::new(
                r"
local owner = redis.call('HGET', KEYS[1], 'owner')
local ep = redis.call('HGET', KEYS[1], 'epoch')
local restored = 0
if redis.call('EXISTS', KEYS[1]) == 0 then
  -- The store lost the room entirely (restarted without persistence).
  redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'epoch', ARGV[2], 'entry', ARGV[5])
  restored = 1
elseif owner ~= ARGV[1] or ep ~= ARGV[2] then
  return -1
end
local ver = tonumber(redis.call('HGET', KEYS[1], 'ver') or '')
if ver and ver > tonumber(ARGV[3]) then return -2 end
redis.call('HSET', KEYS[1], 'ver', ARGV[3], 'snap', ARGV[4], 'n', ARGV[6])
redis.call('HDEL', KEYS[1], 'seqs')
redis.call('DEL', KEYS[2])
return restored",
            ),
            // KEYS[1] room, KEYS[2] its log; ARGV: me, epoch, version,
            // base, seqs JSON, input JSON... → {code, stored}: 0 ok,
            // -1 fenced, -2 stale version, -3 gap (stored inputs; -1 when
            // the store holds no snapshot).
            append: Script::new(
                r"
if redis.call('HEXISTS', KEYS[1], 'snap') == 0 then return {-3, -1} end
local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch', 'ver', 'n')
if h[1] ~= ARGV[1] or h[2] ~= ARGV[2] then return {-1, 0} end
local ver = tonumber(h[3] or '')
if ver and ver > tonumber(ARGV[3]) then return {-2, 0} end
local n = tonumber(h[4] or '-1')
if n ~= tonumber(ARGV[4]) then return {-3, n} end
if #ARGV > 5 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 6)) end
redis.call('HSET', KEYS[1], 'ver', ARGV[3], 'n', n + #ARGV - 5, 'seqs', ARGV[5])
return {0, n + #ARGV - 5}",
            ),
            // KEYS[1] room, KEYS[2] its log → {} or {snap, ver, seqs,
            // input...}: one consistent read of both keys.
            load: Script::new(
                r"
local h = redis.call('HMGET', KEYS[1], 'snap', 'ver', 'seqs')
if not h[1] then return {} end
local out = {h[1], h[2] or '', h[3] or ''}
local log = redis.call('LRANGE', KEYS[2], 0, -1)
for i = 1, #log do out[#out + 1] = log[i] end
return out",
            ),
            // KEYS[1] room; ARGV: entry JSON.
            register: Script::new(
                r"
if redis.call('HEXISTS', KEYS[1], 'entry') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'entry', ARGV[1])
return 1",
            ),
            // KEYS[1] queue; ARGV: ticket JSON, then PICK's arguments
            // (ARGV[2..8]). Takes the partner PICK chooses, or queues the
            // ticket last. → the partner's JSON, or nil (queued).
            match_or_wait: Script::new(&format!(
                r"{PICK}
local got = pick(redis.call('LRANGE', KEYS[1], 0, -1))
if got then
  redis.call('LREM', KEYS[1], 1, got)
  return got
end
redis.call('RPUSH', KEYS[1], ARGV[1])
return false"
            )),
            // KEYS[1] queue; ARGV: the waiter's JSON prefix `{{"id":N,`
            // (as cancel's), then PICK's arguments. If his ticket is still
            // queued and PICK finds a partner, takes both off. → {{1,
            // partner JSON}} matched, {{0, ''}} still waiting, {{-1, ''}}
            // his ticket is not queued (taken: a room is on its way).
            rematch: Script::new(&format!(
                r"{PICK}
local items = redis.call('LRANGE', KEYS[1], 0, -1)
local mine
for _, raw in ipairs(items) do
  if string.sub(raw, 1, #ARGV[1]) == ARGV[1] then mine = raw break end
end
if not mine then return {{-1, ''}} end
local got = pick(items)
if not got then return {{0, ''}} end
redis.call('LREM', KEYS[1], 1, got)
redis.call('LREM', KEYS[1], 0, mine)
return {{1, got}}"
            )),
            // KEYS[1] queue; ARGV: the JSON prefix `{"id":N,` (ids are
            // compared as text: Lua numbers lose u64 precision).
            cancel: Script::new(
                r"
local items = redis.call('LRANGE', KEYS[1], 0, -1)
local n = 0
for _, raw in ipairs(items) do
  if string.sub(raw, 1, #ARGV[1]) == ARGV[1] then
    n = n + redis.call('LREM', KEYS[1], 0, raw)
  end
end
return n",
            ),
            // KEYS[1]; ARGV: old value ('' = none), new value.
            cas: Script::new(
                r"
local cur = redis.call('GET', KEYS[1]) or ''
if cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1",
            ),
            // KEYS[1] the archive queue's entries (a hash), KEYS[2] its
            // order (a sorted set by queued ms; one slot: `{archive}`);
            // ARGV: key, entry, now ms. A key queued already keeps its
            // entry and its place. → 1 queued, 0 kept.
            queue_archive: Script::new(
                r"
local new = redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[1])
return new",
            ),
            // KEYS as queue_archive's; ARGV: key. Takes it off both. → 1.
            archived: Script::new(
                r"
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1",
            ),
            // KEYS as queue_archive's; ARGV: keys (at most a batch, well
            // under Lua's unpack limit). Takes each off both. → 1.
            archived_many: Script::new(
                r"
redis.call('HDEL', KEYS[1], unpack(ARGV))
redis.call('ZREM', KEYS[2], unpack(ARGV))
return 1",
            ),
            // KEYS[1] the archive queue's drainer (a string); ARGV:
            // holder, lease ms. Set (or kept) for the lease when it is
            // free or the holder's already. → 1 held, 0 another's.
            claim_drain: Script::new(
                r"
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1",
            ),
            // KEYS[1] as claim_drain's; ARGV: holder. Deleted only when
            // the holder's. → 1 released, 0 not held.
            release_drain: Script::new(
                r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1",
            ),
            // KEYS[1] the notices' entries (a hash), KEYS[2] their due
            // times (a sorted set), KEYS[3] the id's seen marker (all in
            // the `{notices}` slot); ARGV: id, entry, due ms, keep ms.
            // Queued only when the id is neither queued nor seen within
            // its keep. → 1 queued, 0 refused.
            queue_notice: Script::new(
                r"
if redis.call('EXISTS', KEYS[3]) == 1 or redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  return 0
end
redis.call('SET', KEYS[3], '1', 'PX', ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1",
            ),
            // KEYS as queue_notice's first two; ARGV: now ms, limit. Takes
            // the earliest due notices off both, so each is taken once.
            // → {id, entry, id, entry, …}.
            take_notices: Script::new(
                r"
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  local e = redis.call('HGET', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[1], id)
  if e then
    out[#out + 1] = id
    out[#out + 1] = e
  end
end
return out",
            ),
            // KEYS as take_notices'; ARGV: id, entry, due ms. → 1.
            requeue_notice: Script::new(
                r"
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1",
            ),
            // KEYS[1] the counter of one slot (crate::send_slot); ARGV:
            // sends it allows. → 1 when one more send fits in it, else 0.
            claim_send: Script::new(
                r"
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], 2000) end
if n > tonumber(ARGV[1]) then return 0 end
return 1",
            ),
            // KEYS[1] the pause; ARGV: until ms, now ms. Only ever moves
            // later; expires when it is over. → 1.
            pause_sends: Script::new(
                r"
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local untl = tonumber(ARGV[1])
if untl > cur and untl > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', untl - tonumber(ARGV[2]))
end
return 1",
            ),
            // KEYS[1..4] one shelf's rank, until, entries and node (one
            // slot: `{show}`); ARGV: until ms, now ms, this node, then
            // (room, score, JSON) per item. Lists or renews each item for
            // this node, then drops at most 64 entries expired at now
            // (until <= now), whoever wrote them. → how many it dropped.
            show: Script::new(
                r"
local untl, now, node = ARGV[1], ARGV[2], ARGV[3]
for i = 4, #ARGV - 2, 3 do
  local room = ARGV[i]
  redis.call('ZADD', KEYS[1], ARGV[i + 1], room)
  redis.call('ZADD', KEYS[2], untl, room)
  redis.call('HSET', KEYS[3], room, ARGV[i + 2])
  redis.call('HSET', KEYS[4], room, node)
end
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 64)
for _, room in ipairs(old) do
  redis.call('ZREM', KEYS[1], room)
  redis.call('ZREM', KEYS[2], room)
  redis.call('HDEL', KEYS[3], room)
  redis.call('HDEL', KEYS[4], room)
end
return #old",
            ),
            // KEYS as show's; ARGV: this node, then rooms. Takes each room
            // off the shelf if this node listed it last. → how many.
            unshow: Script::new(
                r"
local n = 0
for i = 2, #ARGV do
  local room = ARGV[i]
  if redis.call('HGET', KEYS[4], room) == ARGV[1] then
    redis.call('ZREM', KEYS[1], room)
    redis.call('ZREM', KEYS[2], room)
    redis.call('HDEL', KEYS[3], room)
    redis.call('HDEL', KEYS[4], room)
    n = n + 1
  end
end
return n",
            ),
            // KEYS[1..3] as show's; ARGV: limit, now ms. Reads only: the
            // JSON of the highest-ranked entries whose until is past now,
            // at most limit, looking at no more than limit + 64 entries
            // (the expired ones among them are show's to drop). → list.
            shown: Script::new(
                r"
local limit, now = tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {}
local rooms = redis.call('ZREVRANGE', KEYS[1], 0, limit + 63)
for _, room in ipairs(rooms) do
  if #out >= limit then break end
  local u = tonumber(redis.call('ZSCORE', KEYS[2], room) or '0')
  if u > now then
    local j = redis.call('HGET', KEYS[3], room)
    if j then out[#out + 1] = j end
  end
end
return out",
            ),
            // KEYS[1] the tournament's ownership hash (`room:{tour~ID}`);
            // ARGV: me, epoch, state JSON. Writes `tstate` only while this
            // node owns it at that epoch. → 0 ok, -1 fenced.
            save_tournament: Script::new(
                r"
local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch')
if h[1] ~= ARGV[1] or h[2] ~= ARGV[2] then return -1 end
redis.call('HSET', KEYS[1], 'tstate', ARGV[3])
return 0",
            ),
            // KEYS[1] the ownership hash, KEYS[2] the inbox hash; ARGV: me,
            // epoch, key... Deletes the keys only while this node owns it at
            // that epoch. → 0 ok, -1 fenced.
            ack_tournament: Script::new(
                r"
local h = redis.call('HMGET', KEYS[1], 'owner', 'epoch')
if h[1] ~= ARGV[1] or h[2] ~= ARGV[2] then return -1 end
if #ARGV > 2 then redis.call('HDEL', KEYS[2], unpack(ARGV, 3)) end
return 0",
            ),
        }
    }
}
