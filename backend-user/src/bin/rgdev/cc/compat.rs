//! What nvcc's front end accepts and clang's does not, mended in the source `rgdev cc`
//! hands to clang (a copy in its work directory; the user's file is not touched).
//!
//! `__shared__ alignas(16) float a[64];`: a memory-space specifier is a GNU attribute to
//! clang, and C++ lets no `alignas` follow one (clang: "an attribute list cannot appear
//! here"), while nvcc takes it (CUDA's samples write it). The `alignas(...)` moves to the
//! start of its declaration, where C++ puts attribute specifiers:
//! `alignas(16) __shared__ float a[64];`, `alignas(16) static __shared__ ...`.

/// The memory-space specifiers an `alignas` may follow in CUDA C++.
const SPACES: [&str; 4] = ["__shared__", "__device__", "__constant__", "__managed__"];

fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// `src` with every `alignas(...)` that follows a memory-space specifier moved to the start
/// of its declaration, or `None` when there is none.
pub(super) fn alignas_first(src: &str) -> Option<String> {
    let mut text = src.to_string();
    let mut from = 0;
    let mut changed = false;
    while let Some((space_at, open)) = next_site(&text, from) {
        let b = text.as_bytes();
        // The balanced parentheses of alignas(...).
        let mut depth = 0usize;
        let mut close = None;
        for (k, &c) in b.iter().enumerate().skip(open) {
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(k);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else { break };
        let alignas_at = text[..open].rfind("alignas").unwrap_or(open);
        let spec = text[alignas_at..=close].to_string();
        // The declaration's start: back over the identifiers (static, extern, const, ...)
        // and blanks before the memory space.
        let mut start = space_at;
        while start > 0 && (ident_char(b[start - 1]) || b[start - 1].is_ascii_whitespace()) {
            start -= 1;
        }
        while start < space_at && b[start].is_ascii_whitespace() {
            start += 1;
        }
        let mut end = close + 1;
        while end < b.len() && b[end] == b' ' {
            end += 1;
        }
        text.replace_range(alignas_at..end, "");
        text.insert_str(start, &format!("{spec} "));
        from = space_at + spec.len() + 1 + SPACES.iter().map(|s| s.len()).min().unwrap_or(0);
        changed = true;
    }
    changed.then_some(text)
}

/// The next memory-space specifier at or after `from` followed by `alignas (`: (its
/// offset, the offset of the parenthesis).
fn next_site(text: &str, from: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut best: Option<(usize, usize)> = None;
    for space in SPACES {
        let mut at = from;
        while let Some(k) = text.get(at..).and_then(|t| t.find(space)).map(|k| k + at) {
            at = k + space.len();
            if k > 0 && ident_char(b[k - 1]) || at < b.len() && ident_char(b[at]) {
                continue;
            }
            let rest = text[at..].trim_start();
            let Some(after) = rest.strip_prefix("alignas") else { continue };
            if !after.trim_start().starts_with('(') {
                continue;
            }
            let open = text.len() - after.trim_start().len();
            if best.is_none_or(|(s, _)| k < s) {
                best = Some((k, open));
            }
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::alignas_first;

    #[test]
    fn alignas_moves_before_the_memory_space() {
        let src = "__global__ void k() {\n  __shared__ alignas(alignof(float4)) float As[4][16];\n  static __shared__  alignas(16) int b[4];\n}\n__device__ alignas(32) float g[8];\n";
        let want = "__global__ void k() {\n  alignas(alignof(float4)) __shared__ float As[4][16];\n  alignas(16) static __shared__  int b[4];\n}\nalignas(32) __device__ float g[8];\n";
        assert_eq!(alignas_first(src).as_deref(), Some(want));
        assert_eq!(alignas_first("alignas(16) __shared__ float a[4]; __shared__ float b;"), None);
        assert_eq!(alignas_first("my__shared__ alignas(4) int x;"), None);
    }
}
