//! knuffle-lab: the bias lab (work in progress in this workspace).
