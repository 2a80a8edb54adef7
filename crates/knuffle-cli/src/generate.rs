//! `knuffle --generate KIND` (as ripgrep does): the man page (clap_mangen)
//! or a completion script (clap_complete), both from [`crate::definition`].

use std::ffi::OsStr;

use clap_complete::Shell;

/// The text for `kind`, or a message naming the kinds.
pub fn render(kind: &OsStr) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let shell = match kind.to_str() {
        Some("man") => return man_page(),
        Some("complete-bash") => Shell::Bash,
        Some("complete-zsh") => Shell::Zsh,
        Some("complete-fish") => Shell::Fish,
        _ => {
            return Err(format!(
                "cannot generate {}: choose one of {}",
                kind.to_string_lossy(),
                crate::shuf::flags::GENERATE_KINDS.join(", ")
            ));
        }
    };
    let mut command = crate::definition::command();
    clap_complete::generate(shell, &mut command, "knuffle", &mut out);
    Ok(out)
}

/// `knuffle(1)`: shuf mode, then each subcommand's options in a section
/// of its own (`KNUFFLE DEAL OPTIONS`, ...).
fn man_page() -> Result<Vec<u8>, String> {
    let command = crate::definition::command();
    let mut out = Vec::new();
    let failed = |e: std::io::Error| e.to_string();
    clap_mangen::Man::new(command.clone())
        .render(&mut out)
        .map_err(failed)?;
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        let heading = heading(sub.get_name());
        // Built first, so that clap's own --help/--version get the heading too.
        let mut sub = sub.clone();
        sub.build();
        let sub = sub.mut_args(|arg| arg.help_heading(heading));
        clap_mangen::Man::new(sub)
            .render_options_section(&mut out)
            .map_err(failed)?;
    }
    Ok(out)
}

/// The man page section of a subcommand's options. clap keeps a heading
/// as `&'static str` (its `string` feature is off); the page is made once
/// per run, so the few leaked bytes are the process's to the end.
fn heading(name: &str) -> &'static str {
    Box::leak(format!("knuffle {name} options").into_boxed_str())
}
