-- standing.lua (read-only): where a player stands, in one round trip.
--
-- KEYS[1] -> <ns>:{L}:r:<b>   the player's record bucket
-- KEYS[2] -> <ns>:{L}:meta    'settled' = last period whose tiers are applied
-- ARGV[1] -> player id
-- ARGV[2] -> key prefix <ns>:{L}:
-- ARGV[3] -> board size
-- ARGV[4] -> the epoch the caller opened the league at
--
-- Returns
--   {11}                                     the league's epoch is not ARGV[4]: the caller's
--                                            tier codes may be stale
--   {}                                       no record: the player never joined
--   {record, rank, size, score, above, settled}
--                                            the player's record and, on the board of the
--                                            record's period (which may be an earlier one),
--                                            their 1-based rank, the board size, their packed
--                                            score and the packed score of the player just
--                                            above ('' at rank 1); rank -1 if the board is gone;
--                                            and the 'settled' mark
--   {record, -1, size, '', '', settled, moderated}
--                                            an operator took the player off that board:
--                                            moderated is their entry in the period's
--                                            moderation hash, '<state>:<tier>:<packed>'
--                                            (moderate.lua)
--
-- uses: rec_decode board_key moderation_key here

-- The epoch and the 'settled' mark in one read: a standing that finds a
-- record needs both, and one that finds none pays little for the second.
local meta = redis.call('HMGET', KEYS[2], 'epoch', 'settled')
if meta[1] ~= ARGV[4] then
  return {11}
end
local player = ARGV[1]
local rec = redis.call('HGET', KEYS[1], player)
if not rec then
  return {}
end
local settled = tonumber(meta[2] or '0')
local s, t, n = rec_decode(rec)
-- bk is not in KEYS: a board ZREVRANK finds is on this node (Redis moves a
-- key whole), so only a lookup that finds no player asks here() whether
-- Redis Cluster is migrating the slot with the board still on the other
-- node; that saves an EXISTS on every standing.
local bk = board_key(ARGV[2], s, t, math.ceil(n / tonumber(ARGV[3])))
local rank = redis.call('ZREVRANK', bk, player)
if not rank then
  local mk = moderation_key(ARGV[2], s)
  here(bk, mk, KEYS[1])
  local m = redis.call('HGET', mk, player)
  if m then
    return {rec, -1, redis.call('ZCARD', bk), '', '', settled, m}
  end
  return {rec, -1, 0, '', '', settled}
end
-- The player's packed score and the one just above, in one read: the
-- entries at ranks rank-1 and rank (the player's alone at rank 0).
local around = redis.call('ZREVRANGE', bk, math.max(rank - 1, 0), rank, 'WITHSCORES')
local above, own = '', around[2]
if rank > 0 then
  above, own = around[2], around[4]
end
return {rec, rank + 1, redis.call('ZCARD', bk), own, above, settled}
