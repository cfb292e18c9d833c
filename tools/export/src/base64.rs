//! Standard base64 (RFC 4648, with `=` padding), as VTK XML expects for inline binary data.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends the base64 encoding of `bytes` (ASCII) to a byte buffer.
pub fn encode_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    out.reserve(bytes.len().div_ceil(3) * 4);
    let sym = |n: u32, k: u32| ALPHABET[((n >> k) & 63) as usize];
    let mut chunks = bytes.chunks_exact(3);
    for c in &mut chunks {
        let n = (u32::from(c[0]) << 16) | (u32::from(c[1]) << 8) | u32::from(c[2]);
        out.extend_from_slice(&[sym(n, 18), sym(n, 12), sym(n, 6), sym(n, 0)]);
    }
    match *chunks.remainder() {
        [a] => {
            let n = u32::from(a) << 16;
            out.extend_from_slice(&[sym(n, 18), sym(n, 12), b'=', b'=']);
        }
        [a, b] => {
            let n = (u32::from(a) << 16) | (u32::from(b) << 8);
            out.extend_from_slice(&[sym(n, 18), sym(n, 12), sym(n, 6), b'=']);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(b: &[u8]) -> String {
        let mut s = Vec::new();
        encode_bytes(b, &mut s);
        String::from_utf8(s).unwrap()
    }

    #[test]
    fn matches_rfc4648_test_vectors() {
        // RFC 4648 §10.
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, coded) in cases {
            assert_eq!(enc(plain.as_bytes()), coded, "{plain:?}");
        }
        assert_eq!(enc(&[0xff, 0xfe, 0x00]), "//4A");
    }
}
