-- tiers.lua: give every tier id a stable one-byte code. Records and keys store
-- codes, so reordering, renaming (as a new id) or inserting tiers in the config
-- never reinterprets what Redis holds.
--
-- KEYS[1] -> <ns>:{L}:tiers   hash tier id -> code
-- ARGV    -> the tier ids of the ladder
--
-- Returns the codes of ARGV, in order; -1 for an id when all 255 codes are used.
--
-- uses: (no helpers)

local codes = redis.call('HGETALL', KEYS[1])
local used, top = {}, -1
for i = 2, #codes, 2 do
  local c = tonumber(codes[i])
  used[codes[i - 1]] = c
  if c > top then top = c end
end
local out = {}
for i, id in ipairs(ARGV) do
  local c = used[id]
  if not c then
    if top >= 254 then
      c = -1
    else
      top = top + 1
      c = top
      used[id] = c
      redis.call('HSET', KEYS[1], id, c)
    end
  end
  out[i] = c
end
return out
