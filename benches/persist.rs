//! Saving and loading a 10⁸-bit classic filter (12.5 MB) against a plain
//! memory copy of the same bytes, in the same run: loading should run at
//! memory-copy speed (one checksum pass and one copy), not element by element;
//! the count of set bits is deferred to its first use.
//!
//! Run with `cargo bench -p approxset-benches --bench persist`.

use std::hint::black_box;

use approxset::BloomFilter;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let bits = 100_000_000u64;
    let mut filter = BloomFilter::with_num_bits(bits).seed(1).hashes(7).unwrap();
    for i in 0..10_000_000u64 {
        filter.insert_bytes(&i.to_le_bytes()).unwrap();
    }
    let bytes = filter.to_bytes().unwrap();
    let mut group = c.benchmark_group("persist/1e8-bits");
    group.sample_size(30);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("memcpy (baseline)", |b| {
        b.iter(|| black_box(bytes.to_vec()))
    });
    group.bench_function("checksum", |b| {
        b.iter(|| black_box(approxset::format::checksum(black_box(&bytes))))
    });
    group.bench_function("decode words (part)", |b| {
        b.iter(|| {
            black_box(
                black_box(&bytes)
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                    .collect::<Vec<u64>>(),
            )
        })
    });
    group.bench_function("from_bytes", |b| {
        b.iter(|| black_box(BloomFilter::from_bytes(black_box(&bytes)).unwrap()))
    });
    // The count of set bits is taken on first use, not on load.
    group.bench_function("from_bytes, then estimated_fp_rate", |b| {
        b.iter(|| {
            let f = BloomFilter::from_bytes(black_box(&bytes)).unwrap();
            black_box(f.estimated_fp_rate())
        })
    });
    group.bench_function("load (dyn)", |b| {
        b.iter(|| black_box(approxset::load(black_box(&bytes)).unwrap()))
    });
    group.bench_function("to_bytes", |b| b.iter(|| black_box(filter.to_bytes())));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
