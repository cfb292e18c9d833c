//! Command-line helpers shared by the thin binaries (`solver`, `treebuild`, `export`):
//! every failure is reported as one line (docs/cli.md, "Errors"), so a message is
//! readable in a pipeline log and greppable by the tests of `tests/bad/`.

/// Clap's message on one line: the lines before its usage block, without the `error: `
/// prefix and the `tip:` lines.
pub fn clap_one_line(e: &clap::Error) -> String {
    let text = e.to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect();
    lines.join(" ").trim_start_matches("error: ").to_owned()
}

/// An error and its causes on one line, leaving out a cause whose text the message
/// already contains (library errors print their I/O cause themselves).
pub fn one_line(e: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if message.contains(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Args {
        #[arg(long)]
        steps: u32,
    }

    #[test]
    fn clap_errors_lose_usage_tips_and_prefix() {
        let e = Args::try_parse_from(["x", "--steps", "many"]).unwrap_err();
        let line = clap_one_line(&e);
        assert!(!line.contains('\n'), "{line}");
        assert!(
            line.starts_with("invalid value 'many' for '--steps"),
            "{line}"
        );
        assert!(!line.contains("Usage") && !line.contains("tip:"), "{line}");
    }

    #[test]
    fn causes_are_chained_once_on_one_line() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(io).context("mesh.ply: cannot read\n  the mesh");
        assert_eq!(one_line(&e), "mesh.ply: cannot read the mesh: no such file");
        let repeated = anyhow::anyhow!("a: no such file").context("reading a: no such file");
        assert_eq!(one_line(&repeated), "reading a: no such file");
    }
}
