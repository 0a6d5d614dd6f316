//! The report of `rehearse inspect`: one [`Inspection`] as text (`inspect/text.rs`, free to
//! change) or as the versioned `rehearse.inspect/v1` document (`inspect/json.rs`, stable),
//! through [`write`]. The checkpoint crate holds the model; only its rendering lives here.

mod json;
mod text;

use std::io::{self, Write};

use super::format::Format;
use crate::checkpoint::Inspection;

pub use json::{to_json, InspectDocument, SCHEMA};
pub use text::write_text;

/// Writes `inspection` to `out` in `format`: [`Format::Terminal`] is [`write_text`] (no colour:
/// the style is not read), [`Format::Json`] the `rehearse.inspect/v1` document (pretty,
/// newline-terminated, secrets masked: [`crate::text::write_json`]). An inspection has no
/// JUnit, Markdown or HTML writer: those formats are an [`io::ErrorKind::Unsupported`] error
/// ([`Format::unsupported`]), which `rehearse inspect` never asks for.
pub fn write(format: Format, inspection: &Inspection, out: &mut impl Write) -> io::Result<()> {
    match format {
        Format::Terminal(_) => write_text(inspection, out),
        Format::Json => crate::text::write_json(out, &to_json(inspection)),
        Format::Junit | Format::Markdown | Format::Html => Err(format.unsupported("inspect")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch_matches_each_writer_and_refuses_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        crate::checkpoint::write_test_checkpoint(dir.path(), &[&[r#"{"events":{"0":3}}"#]]);
        let inspection = crate::checkpoint::inspect(dir.path()).unwrap();
        let render = |format| {
            let mut out = Vec::new();
            write(format, &inspection, &mut out).map(|()| out)
        };
        let mut text = Vec::new();
        write_text(&inspection, &mut text).unwrap();
        let mut json = Vec::new();
        crate::text::write_json(&mut json, &to_json(&inspection)).unwrap();
        let style = crate::report::TerminalStyle { color: true };
        assert_eq!(render(Format::Terminal(style)).unwrap(), text);
        assert_eq!(render(Format::Json).unwrap(), json);
        for format in [Format::Junit, Format::Markdown, Format::Html] {
            let err = render(format).expect_err("no such writer");
            assert_eq!(err.kind(), io::ErrorKind::Unsupported, "{format:?}");
        }
    }
}
