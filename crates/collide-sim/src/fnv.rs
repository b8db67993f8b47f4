//! FNV-1a, 64 bits: the one hash of the crate's fingerprints — the state hash of the bodies and a replay's hash of
//! its pairs. Byte by byte, so a word hashes as its little-endian bytes whatever its width.

/// A running FNV-1a hash.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Hash `bytes`, in order.
    fn add_bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// Hash `word` as its four little-endian bytes.
    pub fn add_u32(&mut self, word: u32) {
        self.add_bytes(&word.to_le_bytes());
    }

    /// Hash `word` as its eight little-endian bytes.
    pub fn add_u64(&mut self, word: u64) {
        self.add_bytes(&word.to_le_bytes());
    }

    /// The hash of everything added so far.
    #[must_use]
    pub fn value(self) -> u64 {
        self.0
    }
}
