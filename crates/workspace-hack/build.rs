// Present so that the [build-dependencies] of Cargo.toml take part in the build.
fn main() {}
