//! Standard base64 (RFC 4648, with `=` padding), as VTK XML expects for inline binary data.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends the base64 encoding of `bytes` to `out`.
pub fn encode_into(bytes: &[u8], out: &mut String) {
    out.reserve(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let sym = |k: u32| ALPHABET[((n >> k) & 63) as usize] as char;
        out.push(sym(18));
        out.push(sym(12));
        out.push(if chunk.len() > 1 { sym(6) } else { '=' });
        out.push(if chunk.len() > 2 { sym(0) } else { '=' });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(b: &[u8]) -> String {
        let mut s = String::new();
        encode_into(b, &mut s);
        s
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
