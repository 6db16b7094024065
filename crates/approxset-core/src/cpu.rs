//! What the processor offers beyond the compiled target, detected once at
//! run time and cached: the instruction sets that the filters' dispatched
//! builds need (the split-block kernel's AVX2, the quotient filter's
//! bit selection). Each answer is one relaxed load after the first call,
//! so a lookup can ask every time. Off x86-64 every answer is `false`.

#[cfg(target_arch = "x86_64")]
use std::sync::atomic::{AtomicU8, Ordering};

/// One detection, cached in a byte: 0 not yet, 1 no, 2 yes.
#[cfg(target_arch = "x86_64")]
struct Cached(AtomicU8);

#[cfg(target_arch = "x86_64")]
impl Cached {
    const fn new() -> Self {
        Self(AtomicU8::new(0))
    }

    #[inline(always)]
    fn get(&self, detect: fn() -> bool) -> bool {
        match self.0.load(Ordering::Relaxed) {
            2 => true,
            1 => false,
            _ => self.first(detect),
        }
    }

    #[cold]
    #[inline(never)]
    fn first(&self, detect: fn() -> bool) -> bool {
        let yes = detect();
        self.0.store(1 + u8::from(yes), Ordering::Relaxed);
        yes
    }
}

/// Whether the processor has AVX2.
#[inline(always)]
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static AVX2: Cached = Cached::new();
        AVX2.get(|| std::is_x86_feature_detected!("avx2"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether the processor has POPCNT, BMI1 and BMI2 with a PDEP that takes
/// a few cycles: every Intel processor with BMI2, and AMD's from Zen 3
/// (family 0x19) on. Zen 1 and 2 (and Hygon's Dhyana, a Zen 1) run PDEP
/// in microcode, a cycle or more per set bit of the mask, slower than
/// selecting a bit with plain arithmetic.
#[inline(always)]
pub fn has_fast_pdep() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static PDEP: Cached = Cached::new();
        PDEP.get(detect_fast_pdep)
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[cfg(target_arch = "x86_64")]
fn detect_fast_pdep() -> bool {
    if !(std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2"))
    {
        return false;
    }
    let (vendor, family) = vendor_and_family();
    let microcoded = matches!(&vendor, b"AuthenticAMD" | b"HygonGenuine") && family < 0x19;
    !microcoded
}

/// The vendor string and the family (base plus extended) from CPUID.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code, unused_unsafe)]
fn vendor_and_family() -> ([u8; 12], u32) {
    use std::arch::x86_64::__cpuid;
    // SAFETY: every x86-64 processor has CPUID, with leaves 0 and 1 (an
    // `unsafe` call before Rust 1.88, safe after).
    let (v, f) = unsafe { (__cpuid(0), __cpuid(1)) };
    let mut vendor = [0u8; 12];
    vendor[..4].copy_from_slice(&v.ebx.to_le_bytes());
    vendor[4..8].copy_from_slice(&v.edx.to_le_bytes());
    vendor[8..].copy_from_slice(&v.ecx.to_le_bytes());
    let base = (f.eax >> 8) & 0xF;
    let family = if base == 0xF {
        base + ((f.eax >> 20) & 0xFF)
    } else {
        base
    };
    (vendor, family)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn answers_match_the_standard_detection() {
        assert_eq!(has_avx2(), std::is_x86_feature_detected!("avx2"));
        // Twice: the detection, then the cached answer.
        for _ in 0..2 {
            assert_eq!(has_fast_pdep(), detect_fast_pdep());
            if has_fast_pdep() {
                assert!(std::is_x86_feature_detected!("bmi2"));
            }
        }
        let (vendor, family) = vendor_and_family();
        assert!(vendor.iter().all(u8::is_ascii_graphic), "{vendor:?}");
        assert!(family >= 6, "{family}");
    }
}
