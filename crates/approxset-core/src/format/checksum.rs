//! The format's checksum.

/// The format's checksum: eight lanes of `h ← rotl((h ⊕ w)·C, 29)` over the
/// input's 64-bit little-endian words, folded together with the length.
///
/// Each step is a bijection of the word and of the lane, so changing any
/// single word (in particular flipping any single bit) always changes the
/// checksum; the independent lanes let it run at memory speed.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut running = Running::new();
    running.update(bytes);
    running.finish()
}

/// One step of a lane: a bijection of the word and of the lane.
#[inline(always)]
fn step(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
}

/// [`checksum`] of bytes that arrive in parts of any length: the one home
/// of the algorithm, so a file read in chunks is checked without being
/// held whole.
#[derive(Clone, Debug)]
pub(crate) struct Running {
    lanes: [u64; LANES],
    /// Bytes of an unfinished block, `pending[..held]`.
    pending: [u8; 8 * LANES],
    held: usize,
    len: u64,
}

impl Running {
    /// The checksum of no bytes yet.
    pub(crate) fn new() -> Self {
        // Lane i starts at SEED + i. Eight lanes keep the multiplier busy:
        // 0.43 ms against 0.64 ms for four over 12.5 MB (a memory copy of
        // the same bytes took 0.64 ms in that run).
        const SEED: u64 = 0x243F_6A88_85A3_08D3;
        Running {
            lanes: std::array::from_fn(|i| SEED.wrapping_add(i as u64)),
            pending: [0; 8 * LANES],
            held: 0,
            len: 0,
        }
    }

    fn block(&mut self, block: &[u8]) {
        for (lane, word) in self.lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = step(*lane, u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
    }

    /// Feeds the next `bytes`.
    pub(crate) fn update(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len() as u64;
        if self.held > 0 {
            let take = (self.pending.len() - self.held).min(bytes.len());
            self.pending[self.held..self.held + take].copy_from_slice(&bytes[..take]);
            self.held += take;
            bytes = &bytes[take..];
            if self.held < self.pending.len() {
                return;
            }
            let block = self.pending;
            self.block(&block);
            self.held = 0;
        }
        let mut blocks = bytes.chunks_exact(8 * LANES);
        for block in &mut blocks {
            self.block(block);
        }
        let rest = blocks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.held = rest.len();
    }

    /// The checksum of every byte fed.
    pub(crate) fn finish(mut self) -> u64 {
        let rest = self.pending;
        for (i, chunk) in rest[..self.held].chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.lanes[i] = step(self.lanes[i], u64::from_le_bytes(word));
        }
        let mut h = step(0x4528_21E6_38D0_1377, self.len);
        for lane in self.lanes {
            h = step(h, lane);
        }
        h
    }
}

/// The checksum's independent lanes; each block of `8 · LANES` bytes feeds
/// one word to each lane.
const LANES: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    /// The checksum as `docs/format.md` states it, word by word.
    fn documented_checksum(bytes: &[u8]) -> u64 {
        let step = |h: u64, w: u64| (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
        let mut lanes = [0u64; 8];
        for (i, lane) in lanes.iter_mut().enumerate() {
            *lane = 0x243F_6A88_85A3_08D3 + i as u64;
        }
        for (j, chunk) in bytes.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            lanes[j % 8] = step(lanes[j % 8], u64::from_le_bytes(word));
        }
        let mut h = step(0x4528_21E6_38D0_1377, bytes.len() as u64);
        for lane in lanes {
            h = step(h, lane);
        }
        h
    }

    #[test]
    fn checksum_follows_the_documented_algorithm() {
        let bytes: Vec<u8> = (0..300u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect();
        for len in 0..bytes.len() {
            assert_eq!(
                checksum(&bytes[..len]),
                documented_checksum(&bytes[..len]),
                "length {len}"
            );
        }
    }

    #[test]
    fn a_running_checksum_in_any_parts_is_the_checksum() {
        let bytes: Vec<u8> = (0..700u32).map(|i| (i * 37 % 251) as u8).collect();
        for cut in [0, 1, 7, 63, 64, 65, 130, 699, 700] {
            for step in [1, 5, 64, 100, 700] {
                let mut running = Running::new();
                running.update(&bytes[..cut]);
                for part in bytes[cut..].chunks(step) {
                    running.update(part);
                }
                assert_eq!(running.finish(), checksum(&bytes), "cut {cut}, step {step}");
            }
        }
    }

    #[test]
    fn checksum_sees_length_and_position() {
        assert_ne!(checksum(&[0u8; 8]), checksum(&[0u8; 16]));
        let mut a = [0u8; 64];
        let mut b = [0u8; 64];
        a[0] = 1;
        b[8] = 1;
        assert_ne!(checksum(&a), checksum(&b));
    }
}
