//! What a cas test does: a sequence of store operations and clock advances,
//! its compact text form for replay tokens, and the smaller sequences that
//! shrinking tries.
//!
//! Versions are never written into a workload as numbers: a correct store
//! may number its versions however it likes (from 1, from 100, in steps of
//! 7), so an operation that passes a version names *where to take it from*:
//! `version_of: Some(VersionFrom::Answer(n))` means "the version in the
//! answer to operation `n`", read from the answers of the very store under
//! test (see [`super::answers::version_in`]); `VersionFrom::Never`, "a
//! version this store never handed out" (0, unless it handed out 0).

use serde::{Deserialize, Serialize};

use crate::grade::WorkloadText;

/// Operations in one workload, at most.
pub const OPS_MAX: usize = 400;
/// Key length in UTF-8 bytes, at most (`kv`'s limit); a key is never empty.
pub const KEY_BYTES_MAX: usize = 256;
/// Value length in UTF-8 bytes, at most (`kv`'s limit); a value may be empty.
pub const VALUE_BYTES_MAX: usize = 4_096;
/// The longest TTL and the longest single clock advance: one day.
pub const TTL_MS_MAX: u64 = 86_400_000;
pub const ADVANCE_MS_MAX: u64 = 86_400_000;

/// Where an operation takes the version it passes from. Serialized for the
/// harness as the answer's index, or `"never"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VersionFrom {
    /// The version in the answer to this earlier operation.
    Answer(usize),
    /// A version the store never handed out: 0 if it never handed out 0,
    /// else one more than the largest it did. A store that tests the option
    /// for truth rather than presence takes 0 for no version at all.
    Never,
}

impl Serialize for VersionFrom {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            VersionFrom::Answer(index) => serializer.serialize_u64(*index as u64),
            VersionFrom::Never => serializer.serialize_str("never"),
        }
    }
}

impl<'de> Deserialize<'de> for VersionFrom {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Shape {
            Index(usize),
            Word(String),
        }
        match Shape::deserialize(deserializer)? {
            Shape::Index(index) => Ok(VersionFrom::Answer(index)),
            Shape::Word(word) if word == "never" => Ok(VersionFrom::Never),
            Shape::Word(word) => {
                Err(serde::de::Error::custom(format!("versionOf {word:?}: an answer's index or \"never\"")))
            }
        }
    }
}

/// One step of a cas test. Serialized for the JavaScript runner as
/// `{ "op": "get" | "cas" | "delete" | "advance", ... }` with camelCase fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum CasOp {
    /// `store.get(key)`.
    Get { key: String },
    /// `store.compareAndSwap(key, nextValue, currentValue, { version, ttlMs })`.
    #[serde(rename_all = "camelCase")]
    Cas {
        key: String,
        next_value: String,
        /// `None`: expect the key to be absent (`currentValue === null`).
        current_value: Option<String>,
        /// Pass `version`, taken from where this says.
        version_of: Option<VersionFrom>,
        ttl_ms: Option<u64>,
    },
    /// `store.delete(key, { version })`.
    #[serde(rename_all = "camelCase")]
    Delete { key: String, version_of: Option<VersionFrom> },
    /// The clock moves `ms` forward; the store is not called.
    Advance { ms: u64 },
}

impl CasOp {
    /// The key a store operation touches; `None` for an advance.
    pub fn key(&self) -> Option<&str> {
        match self {
            CasOp::Get { key } | CasOp::Cas { key, .. } | CasOp::Delete { key, .. } => Some(key),
            CasOp::Advance { .. } => None,
        }
    }

    pub fn version_of(&self) -> Option<VersionFrom> {
        match self {
            CasOp::Cas { version_of, .. } | CasOp::Delete { version_of, .. } => *version_of,
            CasOp::Get { .. } | CasOp::Advance { .. } => None,
        }
    }

    fn version_of_mut(&mut self) -> Option<&mut Option<VersionFrom>> {
        match self {
            CasOp::Cas { version_of, .. } | CasOp::Delete { version_of, .. } => Some(version_of),
            CasOp::Get { .. } | CasOp::Advance { .. } => None,
        }
    }
}

/// The operations of one cas test, applied in order to a fresh store whose
/// clock starts at 0 ms.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CasWorkload {
    pub ops: Vec<CasOp>,
}

/// Bytes written as themselves in a token; every other byte is `%XX`, so
/// that a key or value never holds a separator (`,` `=` `/` `@` `+` `~` or
/// the token's `:`), and the text survives a link.
fn is_plain(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}

/// A key or value for a token: plain bytes as they are, others as `%XX`.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for byte in text.bytes() {
        if is_plain(byte) {
            escaped.push(byte as char);
        } else {
            escaped.push_str(&format!("%{byte:02X}"));
        }
    }
    escaped
}

/// The inverse of [`escape`]; `None` for a bad escape or bytes that are not UTF-8.
fn unescape(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&byte, after)) = rest.split_first() {
        if byte == b'%' {
            let hex = std::str::from_utf8(after.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &after[2..];
        } else if is_plain(byte) {
            bytes.push(byte);
            rest = after;
        } else {
            return None;
        }
    }
    String::from_utf8(bytes).ok()
}

impl CasWorkload {
    /// How many operations call the store (advances do not).
    pub fn store_ops(&self) -> usize {
        self.ops.iter().filter(|op| op.key().is_some()).count()
    }

    /// Checks the shape and the limits: names, values, TTLs, advances, and
    /// that every `version_of` points to an earlier operation. (Whether that
    /// operation's answer carries a version depends on the answers; the
    /// reference run checks it, see [`super::answers::expected_answers`].)
    pub fn check_shape(&self) -> Result<(), String> {
        if self.ops.len() > OPS_MAX {
            return Err(format!("the workload has {} operations; at most {OPS_MAX} are allowed", self.ops.len()));
        }
        for (index, op) in self.ops.iter().enumerate() {
            if let Some(key) = op.key() {
                if key.is_empty() || key.len() > KEY_BYTES_MAX {
                    return Err(format!("operation {index}: key {key:?} must be 1 to {KEY_BYTES_MAX} bytes of UTF-8"));
                }
            }
            if let Some(VersionFrom::Answer(target)) = op.version_of() {
                if target >= index {
                    return Err(format!(
                        "operation {index} takes its version from operation {target}, which does not come before it"
                    ));
                }
            }
            match op {
                CasOp::Cas { next_value, current_value, ttl_ms, .. } => {
                    for value in std::iter::once(next_value).chain(current_value) {
                        if value.len() > VALUE_BYTES_MAX {
                            return Err(format!(
                                "operation {index}: value {value:?} must be at most {VALUE_BYTES_MAX} bytes of UTF-8"
                            ));
                        }
                    }
                    if let Some(ttl_ms) = ttl_ms {
                        if !(1..=TTL_MS_MAX).contains(ttl_ms) {
                            return Err(format!("operation {index}: ttlMs {ttl_ms} must be from 1 to {TTL_MS_MAX}"));
                        }
                    }
                }
                CasOp::Advance { ms } if !(1..=ADVANCE_MS_MAX).contains(ms) => {
                    return Err(format!(
                        "operation {index}: an advance of {ms} ms must be from 1 to {ADVANCE_MS_MAX} ms"
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The workload without operations `start..end`. A version taken from a
    /// removed operation is dropped (the operation no longer compares
    /// versions); later references move down.
    pub fn without_range(&self, start: usize, end: usize) -> CasWorkload {
        let removed = end - start;
        let mut ops = Vec::with_capacity(self.ops.len() - removed);
        for (index, op) in self.ops.iter().enumerate() {
            if (start..end).contains(&index) {
                continue;
            }
            let mut op = op.clone();
            if let Some(version_of) = op.version_of_mut() {
                *version_of = match *version_of {
                    Some(VersionFrom::Answer(target)) if target >= end => Some(VersionFrom::Answer(target - removed)),
                    Some(VersionFrom::Answer(target)) if target >= start => None,
                    other => other,
                };
            }
            ops.push(op);
        }
        CasWorkload { ops }
    }

    /// Smaller neighbours, most promising first: big chunks removed, then
    /// single operations, then adjacent advances merged, advances halved,
    /// and options (TTL, version) dropped. Candidates whose versions no
    /// longer resolve are left out by the caller.
    pub fn smaller(&self) -> Vec<CasWorkload> {
        let length = self.ops.len();
        let mut candidates = Vec::new();
        let mut chunk = length.div_ceil(2);
        while chunk >= 1 {
            // From the end: what follows the first broken answer never matters.
            let mut start = length.saturating_sub(chunk);
            loop {
                candidates.push(self.without_range(start, (start + chunk).min(length)));
                if start == 0 {
                    break;
                }
                start = start.saturating_sub(chunk);
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2).min(chunk - 1);
        }
        for index in 1..length {
            if let (CasOp::Advance { ms: first }, CasOp::Advance { ms: second }) =
                (&self.ops[index - 1], &self.ops[index])
            {
                if first + second <= ADVANCE_MS_MAX {
                    let mut merged = self.without_range(index, index + 1);
                    merged.ops[index - 1] = CasOp::Advance { ms: first + second };
                    candidates.push(merged);
                }
            }
        }
        for (index, op) in self.ops.iter().enumerate() {
            let simpler = match op {
                CasOp::Advance { ms } if *ms > 1 => vec![CasOp::Advance { ms: ms / 2 }],
                CasOp::Cas { key, next_value, current_value, version_of, ttl_ms } => {
                    let mut simpler = Vec::new();
                    if version_of.is_some() {
                        simpler.push(CasOp::Cas {
                            key: key.clone(),
                            next_value: next_value.clone(),
                            current_value: current_value.clone(),
                            version_of: None,
                            ttl_ms: *ttl_ms,
                        });
                    }
                    if ttl_ms.is_some() {
                        simpler.push(CasOp::Cas {
                            key: key.clone(),
                            next_value: next_value.clone(),
                            current_value: current_value.clone(),
                            version_of: *version_of,
                            ttl_ms: None,
                        });
                    }
                    simpler
                }
                CasOp::Delete { key, version_of: Some(_) } => {
                    vec![CasOp::Delete { key: key.clone(), version_of: None }]
                }
                _ => Vec::new(),
            };
            for op in simpler {
                let mut candidate = self.clone();
                candidate.ops[index] = op;
                candidates.push(candidate);
            }
        }
        candidates
    }
}

impl WorkloadText for CasWorkload {
    /// Operations split by `,`: `ga` get a; `ca=x/~+1000` compareAndSwap("a",
    /// "x", null, { ttlMs: 1000 }); `ca=y/x@3` compareAndSwap("a", "y", "x",
    /// { version: <the version in answer 3> }); `@!` a version the store never
    /// handed out; `da`, `da@3`, `da@!` delete; `t500`
    /// the clock moves 500 ms. `~` is null; an empty value is written as
    /// nothing. Keys and values are [`escape`]d: a byte other than a letter,
    /// a digit, `_` or `-` is `%XX` (`__proto__`, `%C3%A9` for `é`).
    fn encode(&self) -> String {
        let op = |op: &CasOp| match op {
            CasOp::Get { key } => format!("g{}", escape(key)),
            CasOp::Cas { key, next_value, current_value, version_of, ttl_ms } => {
                let mut text = format!(
                    "c{}={}/{}",
                    escape(key),
                    escape(next_value),
                    current_value.as_deref().map_or("~".into(), escape)
                );
                if let Some(source) = version_of {
                    text.push_str(&version_text(*source));
                }
                if let Some(ttl_ms) = ttl_ms {
                    text.push_str(&format!("+{ttl_ms}"));
                }
                text
            }
            CasOp::Delete { key, version_of: Some(source) } => format!("d{}{}", escape(key), version_text(*source)),
            CasOp::Delete { key, version_of: None } => format!("d{}", escape(key)),
            CasOp::Advance { ms } => format!("t{ms}"),
        };
        self.ops.iter().map(op).collect::<Vec<_>>().join(",")
    }

    fn decode(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let ops =
            if text.is_empty() { Vec::new() } else { text.split(',').map(decode_op).collect::<Result<Vec<_>, _>>()? };
        let workload = CasWorkload { ops };
        workload.check_shape()?;
        super::answers::expected_answers(&workload)?;
        Ok(workload)
    }
}

/// `@3` (answer 3's version) or `@!` (one the store never handed out).
fn version_text(source: VersionFrom) -> String {
    match source {
        VersionFrom::Answer(target) => format!("@{target}"),
        VersionFrom::Never => "@!".to_string(),
    }
}

fn decode_op(word: &str) -> Result<CasOp, String> {
    let bad = || format!("`{word}` is not a cas operation");
    let number = |text: &str| text.parse::<u64>().map_err(|_| bad());
    let source = |text: &str| match text {
        "!" => Ok(VersionFrom::Never),
        index => number(index).map(|index| VersionFrom::Answer(index as usize)),
    };
    let text = |escaped: &str| {
        unescape(escaped).ok_or_else(|| {
            format!(
                "`{word}`: `{escaped}` is not a key or value (letters, digits, `_`, `-` and `%XX` escapes of UTF-8)"
            )
        })
    };
    // The text up to the first of `separators`, and what follows (separator included).
    let take_until = |text: &str, separators: &[char]| -> (String, String) {
        match text.find(separators) {
            Some(at) => (text[..at].to_string(), text[at..].to_string()),
            None => (text.to_string(), String::new()),
        }
    };
    let Some(tag) = word.chars().next() else {
        return Err(bad());
    };
    let body = &word[tag.len_utf8()..];
    match tag {
        'g' => Ok(CasOp::Get { key: text(body)? }),
        't' => Ok(CasOp::Advance { ms: number(body)? }),
        'd' => {
            let (key, rest) = take_until(body, &['@']);
            let version_of = match rest.strip_prefix('@') {
                Some(target) => Some(source(target)?),
                None if rest.is_empty() => None,
                None => return Err(bad()),
            };
            Ok(CasOp::Delete { key: text(&key)?, version_of })
        }
        'c' => {
            let (key, rest) = take_until(body, &['=']);
            let rest = rest.strip_prefix('=').ok_or_else(bad)?;
            let (next_value, rest) = take_until(rest, &['/']);
            let rest = rest.strip_prefix('/').ok_or_else(bad)?;
            let (current, mut rest) = take_until(rest, &['@', '+']);
            let current_value = if current == "~" { None } else { Some(text(&current)?) };
            let mut version_of = None;
            if let Some(after) = rest.strip_prefix('@') {
                let (target, after) = take_until(after, &['+']);
                version_of = Some(source(&target)?);
                rest = after;
            }
            let ttl_ms = match rest.strip_prefix('+') {
                Some(ttl) => Some(number(ttl)?),
                None if rest.is_empty() => None,
                None => return Err(bad()),
            };
            Ok(CasOp::Cas { key: text(&key)?, next_value: text(&next_value)?, current_value, version_of, ttl_ms })
        }
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        let text = "ca=x/~+1000,ga,t999,ca=y/x@1,cb=/~,cb=z/,da@3,db,t1,cb=w/z@!,db@!";
        let workload = CasWorkload::decode(text).unwrap();
        assert_eq!(workload.encode(), text);
        assert_eq!(
            workload.ops[3],
            CasOp::Cas {
                key: "a".into(),
                next_value: "y".into(),
                current_value: Some("x".into()),
                version_of: Some(VersionFrom::Answer(1)),
                ttl_ms: None
            }
        );
        assert_eq!(
            workload.ops[5],
            CasOp::Cas {
                key: "b".into(),
                next_value: "z".into(),
                current_value: Some(String::new()),
                version_of: None,
                ttl_ms: None
            }
        );
        assert_eq!(CasWorkload::decode(""), Ok(CasWorkload::default()));
    }

    #[test]
    fn bad_text_says_what_is_wrong() {
        assert!(CasWorkload::decode("ga,x1").unwrap_err().contains("`x1`"));
        assert!(CasWorkload::decode("ca=x").unwrap_err().contains("`ca=x`"));
        assert!(CasWorkload::decode("ga,ca=x/~@5").unwrap_err().contains("does not come before"));
        assert!(CasWorkload::decode("c%ZZ=x/~").unwrap_err().contains("`%ZZ`"));
        assert!(CasWorkload::decode("c%FF=x/~").unwrap_err().contains("UTF-8"));
        assert!(CasWorkload::decode("c=x/~").unwrap_err().contains("key"));
        assert!(CasWorkload::decode("ca=x/~+0").unwrap_err().contains("ttlMs 0"));
        // The advance at 0 has no version to give.
        assert!(CasWorkload::decode("t5,ca=x/~@0").unwrap_err().contains("carries no version"));
    }

    #[test]
    fn exotic_keys_and_values_round_trip_through_the_text() {
        let texts =
            ["__proto__", "constructor", "toString", "\u{430}", "e\u{301}", "\u{1f511}", "k:,/~@+=%", "a ", "null", ""];
        let mut ops = Vec::new();
        for (index, text) in texts.iter().enumerate() {
            let key = if text.is_empty() { "x".to_string() } else { text.to_string() };
            ops.push(CasOp::Cas {
                key: key.clone(),
                next_value: text.to_string(),
                current_value: None,
                version_of: None,
                ttl_ms: None,
            });
            ops.push(CasOp::Cas {
                key: key.clone(),
                next_value: "v".into(),
                current_value: Some(text.to_string()),
                version_of: Some(VersionFrom::Answer(2 * index)),
                ttl_ms: Some(5),
            });
        }
        ops.push(CasOp::Get { key: "__proto__".into() });
        ops.push(CasOp::Delete { key: "\u{1f511}".into(), version_of: Some(VersionFrom::Answer(11)) });
        let workload = CasWorkload { ops };
        let encoded = workload.encode();
        assert!(encoded.bytes().all(|byte| byte.is_ascii_graphic() && byte != b':'), "{encoded}");
        assert_eq!(CasWorkload::decode(&encoded), Ok(workload));
        // Tokens written before escaping existed read the same.
        assert_eq!(CasWorkload::decode("ca=x/~+1000,ga").unwrap().encode(), "ca=x/~+1000,ga");
    }

    #[test]
    fn removing_operations_renumbers_versions() {
        let workload = CasWorkload::decode("ca=x/~,ga,ca=y/x@1,da@2").unwrap();
        assert_eq!(workload.without_range(0, 1).encode(), "ga,ca=y/x@0,da@1");
        assert_eq!(workload.without_range(1, 2).encode(), "ca=x/~,ca=y/x,da@1");
    }
}
