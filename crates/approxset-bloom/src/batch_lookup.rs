//! Batched lookups of the Bloom core: [`Bloom::contains_digests`], which
//! takes the digests a chunk at a time so that the cache misses of a
//! chunk's keys overlap (`docs/design.md`, "Batched lookups"), and the
//! prefetch that batched inserts share.

use approxset_core::{Digest, ProbeScheme};

use crate::bloom::Bloom;
use crate::cell_traits::CellsRead;
use crate::layout::{
    BATCH_CHUNK, Layout, PROBE_GROUP, WAVE_CHUNK, WAVE_GROUP, all_probes, first_of,
};

impl<L: Layout, C: CellsRead<L>> Bloom<L, C> {
    /// Answers [`contains_digest`](Self::contains_digest) for every digest:
    /// `out` is cleared, then gets one answer per digest, in order.
    ///
    /// The digests are taken a chunk at a time and their probes read in
    /// waves: each wave prefetches the next probes of the keys still
    /// possibly present, then reads them with no branch on what they find,
    /// so the cache misses of the chunk's keys overlap and a key's lines
    /// past its first unset bit are not read (why, and what it gains:
    /// `docs/design.md`, "Batched lookups").
    ///
    /// ```
    /// # extern crate approxset_bloom as approxset;
    /// use approxset::BloomFilter;
    ///
    /// let mut f = BloomFilter::with_fp_rate(0.01).seed(1).expected_items(1_000)?;
    /// f.insert("alice")?;
    /// let digests = [f.hash_key().digest("alice"), f.hash_key().digest("bob")];
    /// let mut out = Vec::new();
    /// f.contains_digests(&digests, &mut out);
    /// assert_eq!(out[0], true);
    /// assert_eq!(out, digests.map(|d| f.contains_digest(d)));
    /// # Ok::<(), approxset_bloom::Error>(())
    /// ```
    pub fn contains_digests(&self, digests: &[Digest], out: &mut Vec<bool>) {
        out.clear();
        out.reserve(digests.len());
        if !L::ONE_LINE && !L::BLOCK_TEST {
            for chunk in digests.chunks(WAVE_CHUNK) {
                // The probe scheme as a constant in each arm, so that
                // neither copy of the waves branches on it for every probe.
                match self.scheme {
                    ProbeScheme::Mixed => self.chunk_waves(chunk, ProbeScheme::Mixed, out),
                    scheme => self.chunk_waves(chunk, scheme, out),
                }
            }
            return;
        }
        for chunk in digests.chunks(BATCH_CHUNK) {
            if L::BLOCK_TEST {
                // One pass after the prefetch: a whole-block test has no
                // branch on the bits (the split-block layout's whole loop
                // on its AVX2 build).
                self.prefetch(chunk, 1);
                if !self.cells.block_contains_all(chunk, out) {
                    out.extend(chunk.iter().map(|&digest| self.contains_digest(digest)));
                }
                continue;
            }
            self.chunk_contains(chunk, self.scheme, out);
        }
    }

    /// [`contains_digests`](Self::contains_digests) of one chunk of at
    /// most [`BATCH_CHUNK`] digests, for a layout that keeps a key's
    /// positions in one line (the blocked layout), appended to `out`.
    #[inline(always)]
    fn chunk_contains(&self, chunk: &[Digest], scheme: ProbeScheme, out: &mut Vec<bool>) {
        let (bits, hashes) = (self.cells.cell_count(), self.hashes);
        let positions = |digest| L::positions(bits, hashes, scheme, digest);
        // Pass 0: derive every key's first probes, kept for pass 1, and
        // ask for their line.
        let mut groups = [[0; PROBE_GROUP]; BATCH_CHUNK];
        for (group, &digest) in groups.iter_mut().zip(chunk) {
            *group = L::first_group(bits, hashes, scheme, digest);
            self.cells.prefetch(group[0]);
        }
        // Pass 1: the first group of probes of every key. Nothing branches
        // on the bits read, so the loads of different keys are independent
        // and their misses overlap. The answers go to the stack, where a
        // store cannot alias the cells.
        let mut answers = [false; BATCH_CHUNK];
        for (answer, group) in answers.iter_mut().zip(&groups[..chunk.len()]) {
            *answer = group
                .iter()
                .fold(true, |all, &pos| all & self.cells.is_set(pos));
        }
        // Pass 2: the rest of the probes of the keys whose first group was
        // all set (from the line now cached).
        for (answer, &digest) in answers.iter_mut().zip(chunk) {
            if *answer {
                *answer = all_probes(positions(digest).skip(PROBE_GROUP), |pos| {
                    self.cells.is_set(pos)
                });
            }
        }
        out.extend_from_slice(&answers[..chunk.len()]);
    }

    /// [`contains_digests`](Self::contains_digests) of one chunk of at
    /// most [`WAVE_CHUNK`] digests, for a layout that spreads a key's
    /// positions over the filter, with probes placed by `scheme` (the
    /// filter's), appended to `out`.
    ///
    /// The first wave prefetches, then reads, one probe of every key; each
    /// later wave the next [`WAVE_GROUP`] probes of the keys whose probes
    /// so far were all set. No read branches on a bit: a key's answer and
    /// whether it stays in the list of live keys are stored whatever they
    /// are. A non-member at half fill reads about 2.3 lines this way
    /// against 3.4 with a first group of three for every key.
    #[inline(always)]
    fn chunk_waves(&self, chunk: &[Digest], scheme: ProbeScheme, out: &mut Vec<bool>) {
        let (bits, hashes) = (self.cells.cell_count(), self.hashes);
        // The answers go to the stack, where a store cannot alias the cells.
        let mut answers = [false; WAVE_CHUNK];
        // The chunk's indices of the keys still live, the first `live_len`.
        let mut live = [0u8; WAVE_CHUNK];
        let mut live_len = 0;
        // Wave 1: one probe per key, kept for the read after the prefetch.
        let mut firsts = [0; WAVE_CHUNK];
        for (first, &digest) in firsts.iter_mut().zip(chunk) {
            [*first] = L::first_group::<1>(bits, hashes, scheme, digest);
            self.cells.prefetch(*first);
        }
        for (i, &first) in firsts[..chunk.len()].iter().enumerate() {
            let set = self.cells.is_set(first);
            answers[i] = set;
            live[live_len] = i as u8;
            live_len += usize::from(set);
        }
        // Later waves: the next group of the live keys, prefetched, then
        // read; the live list is compacted in place as it is read. A live
        // key's probes are derived again from its digest, skipping those
        // read: keeping every key's probe iterator from wave 1 instead cost
        // 155 instructions per non-member against 104.5 (`icount`
        // `classic-digests`), since most keys die in wave 1.
        let mut done = 1;
        let mut groups = [[0; WAVE_GROUP]; WAVE_CHUNK];
        while live_len > 0 && done < hashes as usize {
            for (group, &i) in groups.iter_mut().zip(&live[..live_len]) {
                let digest = chunk[usize::from(i)];
                *group = first_of(L::positions(bits, hashes, scheme, digest).skip(done));
                for &pos in group.iter() {
                    self.cells.prefetch(pos);
                }
            }
            let mut still = 0;
            for t in 0..live_len {
                let i = live[t];
                let set = groups[t]
                    .iter()
                    .fold(true, |all, &pos| all & self.cells.is_set(pos));
                answers[usize::from(i)] = set;
                live[still] = i;
                still += usize::from(set);
            }
            live_len = still;
            done += WAVE_GROUP;
        }
        out.extend_from_slice(&answers[..chunk.len()]);
    }

    /// Asks for the lines of the first `lines` positions of every digest (a
    /// hint, where the target has one), so that they arrive together.
    #[inline]
    pub(crate) fn prefetch(&self, digests: &[Digest], lines: usize) {
        for &digest in digests {
            for pos in self.positions(digest).take(lines) {
                self.cells.prefetch(pos);
            }
        }
    }
}
