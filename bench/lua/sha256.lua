-- SHA-256 and HMAC-SHA256 in pure LuaJIT (the `bit` library), with exported midstates so a
-- body that is CONSTANT_PREFIX .. varying tail can be signed per request by hashing only the
-- tail: the prefix's 64-byte-aligned part is compressed once per thread (FIPS 180-4).
local bit = require("bit")
local band, bor, bxor, bnot = bit.band, bit.bor, bit.bxor, bit.bnot
local rshift, lshift, ror, tobit, tohex = bit.rshift, bit.lshift, bit.ror, bit.tobit, bit.tohex
local byte, char, sub, rep = string.byte, string.char, string.sub, string.rep
local concat = table.concat

local K = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}
for i = 1, 64 do K[i] = tobit(K[i]) end

local IV = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 }
for i = 1, 8 do IV[i] = tobit(IV[i]) end

local W = {}

-- Compress the 64-byte block of `s` starting at 1-based offset `off` into state H (in place).
local function compress(H, s, off)
  for j = 1, 16 do
    local a, b, c, d = byte(s, off, off + 3)
    W[j] = bor(lshift(a, 24), lshift(b, 16), lshift(c, 8), d)
    off = off + 4
  end
  for j = 17, 64 do
    local w15, w2 = W[j - 15], W[j - 2]
    local s0 = bxor(ror(w15, 7), ror(w15, 18), rshift(w15, 3))
    local s1 = bxor(ror(w2, 17), ror(w2, 19), rshift(w2, 10))
    W[j] = tobit(W[j - 16] + s0 + W[j - 7] + s1)
  end
  local a, b, c, d, e, f, g, h = H[1], H[2], H[3], H[4], H[5], H[6], H[7], H[8]
  for j = 1, 64 do
    local S1 = bxor(ror(e, 6), ror(e, 11), ror(e, 25))
    local ch = bxor(band(e, f), band(bnot(e), g))
    local t1 = h + S1 + ch + K[j] + W[j]
    local S0 = bxor(ror(a, 2), ror(a, 13), ror(a, 22))
    local maj = bxor(band(a, b), band(a, c), band(b, c))
    h, g, f, e, d, c, b, a = g, f, e, tobit(d + t1), c, b, a, tobit(t1 + S0 + maj)
  end
  H[1], H[2], H[3], H[4] = tobit(H[1] + a), tobit(H[2] + b), tobit(H[3] + c), tobit(H[4] + d)
  H[5], H[6], H[7], H[8] = tobit(H[5] + e), tobit(H[6] + f), tobit(H[7] + g), tobit(H[8] + h)
end

local M = {}

-- A midstate: the chaining value after `len` bytes (a multiple of 64) have been compressed.
function M.init()
  return { h = { IV[1], IV[2], IV[3], IV[4], IV[5], IV[6], IV[7], IV[8] }, len = 0 }
end

-- Absorb the 64-byte-aligned head of `s`; returns the unabsorbed rest (< 64 bytes).
function M.absorb(st, s)
  local n = #s - #s % 64
  for off = 1, n, 64 do compress(st.h, s, off) end
  st.len = st.len + n
  return sub(s, n + 1)
end

local function copy(st)
  local h = st.h
  return { h = { h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8] }, len = st.len }
end
M.copy = copy

local function be32(n)
  return char(band(rshift(n, 24), 255), band(rshift(n, 16), 255), band(rshift(n, 8), 255), band(n, 255))
end

-- Finish from a midstate with the remaining bytes `tail`; returns the 32-byte digest.
-- The midstate is not modified.
function M.finish(st, tail)
  local h = copy(st).h
  local total = st.len + #tail
  local padlen = 64 - (#tail + 9) % 64
  if padlen == 64 then padlen = 0 end
  -- bit length as a 64-bit big-endian number (bodies are far below 2^32 bytes)
  local bits = total * 8
  local hi = math.floor(bits / 4294967296)
  local msg = tail .. "\128" .. rep("\0", padlen) .. be32(hi) .. be32(tobit(bits % 4294967296))
  for off = 1, #msg, 64 do compress(h, msg, off) end
  return concat({ be32(h[1]), be32(h[2]), be32(h[3]), be32(h[4]), be32(h[5]), be32(h[6]), be32(h[7]), be32(h[8]) })
end

function M.digest(s)
  local st = M.init()
  local rest = M.absorb(st, s)
  return M.finish(st, rest)
end

function M.hex(d)
  local out = {}
  for i = 1, #d, 4 do
    local a, b, c, e = byte(d, i, i + 3)
    out[#out + 1] = tohex(bor(lshift(a, 24), lshift(b, 16), lshift(c, 8), e), 8)
  end
  return concat(out)
end

-- HMAC-SHA256 (RFC 2104) prepared for a fixed key and a fixed message prefix.
-- Returns a function(tail) -> hex signature of prefix .. tail.
function M.hmac_prefixed(key, prefix)
  if #key > 64 then key = M.digest(key) end
  key = key .. rep("\0", 64 - #key)
  local ipad, opad = {}, {}
  for i = 1, 64 do
    local k = byte(key, i)
    ipad[i] = char(bxor(k, 0x36))
    opad[i] = char(bxor(k, 0x5c))
  end
  local inner = M.init()
  M.absorb(inner, concat(ipad))
  local rest = M.absorb(inner, prefix)
  local outer = M.init()
  M.absorb(outer, concat(opad))
  return function(tail)
    return M.hex(M.finish(outer, M.finish(inner, rest .. tail)))
  end
end

return M
