//! A request's query string: named numbers and words, each checked, so that a
//! bad parameter becomes a 400 with one line saying which and why.

use std::collections::BTreeMap;

/// The parameters of one request, by name (each given at most once).
pub struct Query<'a> {
    pairs: BTreeMap<&'a str, &'a str>,
}

impl<'a> Query<'a> {
    /// Splits `a=1&b=2`; refuses a repeated or empty name and any name outside
    /// `allowed` (a misspelt parameter must not be silently ignored).
    pub fn parse(query: &'a str, allowed: &[&str]) -> Result<Query<'a>, String> {
        let mut pairs = BTreeMap::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            if !allowed.contains(&name) {
                let takes = match allowed {
                    [] => "no parameters".to_string(),
                    _ => allowed.join(", "),
                };
                return Err(format!(
                    "unknown parameter {:?} (this page takes {takes})",
                    clip(name, 40),
                ));
            }
            if pairs.insert(name, value).is_some() {
                return Err(format!("parameter {name} is given twice"));
            }
        }
        Ok(Query { pairs })
    }

    /// A whole number `<= max`, required.
    pub fn number(&self, name: &str, max: u64) -> Result<u64, String> {
        self.optional_number(name, max)?
            .ok_or_else(|| format!("parameter {name} is missing"))
    }

    /// A whole number `<= max`, if given.
    pub(crate) fn optional_number(&self, name: &str, max: u64) -> Result<Option<u64>, String> {
        let Some(text) = self.pairs.get(name) else {
            return Ok(None);
        };
        let bad = || {
            format!(
                "parameter {name}={:?} is not a whole number 0..={max}",
                clip(text, 40)
            )
        };
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        match text.parse::<u64>() {
            Ok(v) if v <= max => Ok(Some(v)),
            _ => Err(bad()),
        }
    }

    /// One of `choices` (the first when not given).
    pub fn word(&self, name: &str, choices: &[&'static str]) -> Result<&'static str, String> {
        match self.pairs.get(name) {
            None => Ok(choices[0]),
            Some(text) => choices.iter().find(|c| *c == text).copied().ok_or_else(|| {
                format!(
                    "parameter {name}={:?} is not one of {}",
                    clip(text, 40),
                    choices.join(", ")
                )
            }),
        }
    }
}

/// At most `n` characters of what the client sent, for an error line.
pub(super) fn clip(s: &str, n: usize) -> String {
    // Control characters escaped, so that an answer stays one line.
    s.chars().take(n).flat_map(char::escape_default).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_words_and_their_refusals() {
        let q = Query::parse("q=12&m=dead", &["q", "r", "m"]).unwrap();
        assert_eq!(q.number("q", 100), Ok(12));
        assert!(q.number("r", 100).unwrap_err().contains("missing"));
        assert_eq!(q.word("m", &["offset", "dead"]), Ok("dead"));
        assert!(Query::parse("x=1", &["q"]).is_err());
        assert!(Query::parse("q=1&q=2", &["q"]).is_err());
        assert_eq!(clip("a\nb\0c", 60), "a\\nb\\u{0}c");
        for bad in [
            "q=-1",
            "q=1e3",
            "q=",
            "q=+5",
            "q=101",
            "q=99999999999999999999999",
        ] {
            let q = Query::parse(bad, &["q"]).unwrap();
            assert!(q.number("q", 100).is_err(), "{bad}");
        }
        let q = Query::parse("m=gold", &["m"]).unwrap();
        assert!(q.word("m", &["offset"]).is_err());
    }
}
