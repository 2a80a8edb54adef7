//! The algorithm zoo: our fair shuffles, the algorithms of the write-ups we studied and the
//! classic wrong ones, each observable step by step.
//!
//! Every algorithm is an [`Algorithm`] value with a command-line
//! [`name`](Algorithm::name), a one-line [`description`](Algorithm::description),
//! its [`source`](Algorithm::source) and its [`fairness`](Algorithm::fairness).
//! [`Algorithm::run`] shuffles a slice with a generator and reports every
//! step to an [`Observer`]; [`NoObserver`] compiles to nothing, which is what
//! the lab's hot loop uses. All randomness goes through
//! [`Choices`], so the same code is sampled, traced
//! and enumerated exactly ([`crate::exact`]).
//!
//! ```
//! use knuffle_lab::zoo::{Algorithm, NoObserver};
//! let mut rng = knuffle::Seed::from_text("zoo").rng();
//! let mut items = [0usize, 1, 2, 3];
//! Algorithm::NaiveSwap.run(&mut items, &mut rng, &mut NoObserver);
//! let mut sorted = items;
//! sorted.sort();
//! assert_eq!(sorted, [0, 1, 2, 3]);
//! assert_eq!(Algorithm::from_name("naive-swap"), Some(Algorithm::NaiveSwap));
//! ```

use std::fmt;

use rand_core::Rng;

use crate::choices::{Choices, RngChoices};
pub use crate::observer::{NoObserver, Observer};
use crate::reduction::{Reduction, ZOO_WORD_BITS};

mod moves;
mod sorts;

use moves::swap;
use sorts::{double_order, sort_by_keys, sort_with_coin};

/// How an algorithm's output is distributed over the orders of `n` items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fairness {
    /// Every one of the `n!` orders has probability exactly `1/n!`.
    Uniform,
    /// Uniform except when two random keys tie (ties keep the input order).
    /// With wide keys a tie is so rare that no experiment can see it; the
    /// description states the tie probability.
    UniformUpToTies,
    /// Uniform over the `(n-1)!` single-cycle permutations only (Sattolo):
    /// right for its purpose, biased as a shuffle.
    UniformOverCycles,
    /// Some orders are more likely than others.
    Biased,
}

impl Fairness {
    /// Whether, as a shuffle of `n >= 3` items, no experiment of practical
    /// size should find bias.
    pub fn is_fair_shuffle(self) -> bool {
        matches!(self, Fairness::Uniform | Fairness::UniformUpToTies)
    }

    /// A short label: "fair", "fair (up to key ties)", "cyclic only", "biased".
    pub fn label(self) -> &'static str {
        match self {
            Fairness::Uniform => "fair",
            Fairness::UniformUpToTies => "fair up to key ties",
            Fairness::UniformOverCycles => "uniform over cycles only",
            Fairness::Biased => "biased",
        }
    }
}

/// Whether, and how, [`crate::exact`] can enumerate an algorithm's paths.
#[derive(Clone, Copy, Debug)]
pub enum Exact {
    /// Enumerable; the number of paths is counted while walking them.
    Walk,
    /// Enumerable, with this many paths for `n` items (`None`: more than
    /// `u128` holds), so that too many paths are refused at once.
    Paths(fn(usize) -> Option<u128>),
    /// Not enumerable, and why (in words for the user).
    Unavailable(&'static str),
}

/// The algorithms of the zoo, one entry each, in the order the lab prints
/// them: its variant, command-line name, [`Fairness`], source (cited as a
/// paper is), one-line description, exact-enumeration support ([`Exact`])
/// and run function (`fn(&mut [T], &mut C, &mut O)` with `T: Copy`,
/// `C:` [`Choices`], `O:` [`Observer`], written below). Adding an algorithm
/// is adding one entry here and its run function.
macro_rules! zoo_table {
    ($d:tt $(
        $variant:ident {
            name: $name:literal,
            fairness: $fairness:ident,
            source: $source:literal,
            description: $description:literal,
            exact: $exact:expr,
            run: $run:ident $(,)?
        }
    ),* $(,)?) => {
        /// One algorithm of the zoo (see [`Algorithm::description`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Algorithm {
            $(
                #[doc = $description]
                $variant,
            )*
        }

        /// Calls the macro `$then!` with the variant names of every
        /// algorithm, in table order: the per-algorithm dispatch of
        /// [`crate::sample`] is a `match` over this list, so each
        /// algorithm's loop is compiled with the algorithm known.
        macro_rules! every_algorithm {
            ($d then:ident) => {
                $d then!($($variant),*)
            };
        }
        pub(crate) use every_algorithm;

        /// Every algorithm, in the order the lab prints them.
        pub const ALL: &[Algorithm] = &[$(Algorithm::$variant),*];

        impl Algorithm {
            /// The command-line name, e.g. `fisher-yates`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Algorithm::$variant => $name,)*
                }
            }

            /// One line: what it does and why it is (un)fair.
            pub fn description(self) -> &'static str {
                match self {
                    $(Algorithm::$variant => $description,)*
                }
            }

            /// Where the algorithm comes from.
            pub fn source(self) -> &'static str {
                match self {
                    $(Algorithm::$variant => $source,)*
                }
            }

            /// How the output is distributed.
            pub fn fairness(self) -> Fairness {
                match self {
                    $(Algorithm::$variant => Fairness::$fairness,)*
                }
            }

            /// Whether, and how, its paths can be enumerated exactly.
            pub fn exact(self) -> Exact {
                match self {
                    $(Algorithm::$variant => $exact,)*
                }
            }

            /// Shuffles `items` with choices from any [`Choices`] source,
            /// reporting each step to `obs`.
            #[inline(always)]
            pub fn run_with<T: Copy, C: Choices, O: Observer>(
                self,
                items: &mut [T],
                choices: &mut C,
                obs: &mut O,
            ) {
                match self {
                    $(Algorithm::$variant => $run(items, choices, obs),)*
                }
            }
        }
    };
}

zoo_table! { $
    FisherYates {
        name: "fisher-yates",
        fairness: Uniform,
        source: "R. Durstenfeld, Algorithm 235, CACM 7(7), 1964; Knuth TAOCP 2, 3.4.2 Algorithm P; the 1/n! proof in \"Fisher-Yates Shuffling & Implementation in Java\" (Counting & Probability notes)",
        description: "for i from n-1 down to 1, swap item i with a uniform item of 0..=i: n! equally likely paths, one per order",
        exact: Exact::Walk,
        run: fisher_yates,
    },
    InsideOut {
        name: "inside-out",
        fairness: Uniform,
        source: "Durstenfeld 1964; Knuth TAOCP 2, 3.4.2; the array routine KnuthArrShuffle of \"Visual Basic for Applications/The Knuth String Shuffle\" (Wikibooks)",
        description: "append item i to the copy, then swap it with a uniform position of 0..=i: the prefix stays uniformly shuffled",
        exact: Exact::Walk,
        run: inside_out,
    },
    Sattolo {
        name: "sattolo",
        fairness: UniformOverCycles,
        source: "S. Sattolo, Information Processing Letters 22(6), 1986",
        description: "Fisher-Yates with the partner drawn from 0..i (never i itself): uniform over the (n-1)! single-cycle orders, so a biased shuffle",
        exact: Exact::Walk,
        run: sattolo,
    },
    NaiveSwap {
        name: "naive-swap",
        fairness: Biased,
        source: "'How not to shuffle #2' in \"Shuffle things in .Net\" (blog post, 12 February 2009); J. Atwood, Coding Horror, 2007",
        description: "swap each position with any position 0..n-1: n^n equally likely paths cannot split evenly over n! orders",
        exact: Exact::Paths(every_position_paths),
        run: naive_swap,
    },
    PickUnused {
        name: "pick-unused",
        fairness: Uniform,
        source: "'How not to shuffle #1' in \"Shuffle things in .Net\" (blog post, 12 February 2009)",
        description: "draw a card 1..n, draw again while it was already used: fair, but about n*H(n) draws instead of n-1",
        exact: Exact::Walk,
        run: pick_unused,
    },
    SortKeys {
        name: "sort-keys",
        fairness: UniformUpToTies,
        source: "folklore: sort_by_key(|_| rng.next_u64())",
        description: "give each item a random 64-bit key and stable-sort: fair except that two equal keys keep input order (tie chance about n^2/2^65)",
        exact: Exact::Unavailable(
            "sort-keys draws 64-bit keys: 2^(64n) paths cannot be enumerated. Its only departure from uniform is a key tie (probability below n^2/2^65); try key-collisions, whose 8-bit keys can be enumerated for n <= 3",
        ),
        run: sort_keys,
    },
    SortGuid {
        name: "sort-guid",
        fairness: UniformUpToTies,
        source: "'Sorting with a GUID' (OrderBy(Guid.NewGuid)) in \"Shuffle things in .Net\" (blog post, 12 February 2009)",
        description: "order by Guid.NewGuid: 122 random bits per key; fair except for ties (about n^2/2^123)",
        exact: Exact::Unavailable(
            "sort-guid draws 122-bit keys: 2^(122n) paths cannot be enumerated; it is uniform except for ties (probability below n^2/2^123)",
        ),
        run: sort_guid,
    },
    SortDoubles {
        name: "sort-doubles",
        fairness: UniformUpToTies,
        source: "'Sorting with a load of random Doubles' in \"Shuffle things in .Net\" (blog post, 12 February 2009)",
        description: "order by 8 random bytes read as a double: fair except that all NaNs (2^-11 of keys) and +0/-0 compare equal and keep input order",
        exact: Exact::Unavailable(
            "sort-doubles draws 64-bit keys: 2^(64n) paths cannot be enumerated; it is uniform except for NaN/zero ties",
        ),
        run: sort_doubles,
    },
    SortComparator {
        name: "sort-comparator",
        fairness: Biased,
        source: "folklore: JavaScript's sort(() => Math.random() - 0.5); merge sort written here so it cannot panic",
        description: "merge sort whose comparator flips a coin (sort(() => Math.random() - 0.5)): paths are powers of 1/2, n! does not divide them",
        exact: Exact::Walk,
        run: sort_with_coin,
    },
    KeyCollisions {
        name: "key-collisions",
        fairness: Biased,
        source: "folklore: sort by a small random key (e.g. a random byte)",
        description: "stable-sort by an 8-bit random key: equal keys (likely: birthday problem) keep input order, so the input order is too likely",
        exact: Exact::Paths(collision_key_paths),
        run: key_collisions,
    },
    StringMethod {
        name: "string-method",
        fairness: Uniform,
        source: "FisherYatesStrShuffle in \"Visual Basic for Applications/The Knuth String Shuffle\" (Wikibooks); R. A. Fisher and F. Yates, Statistical Tables, 1938",
        description: "take a uniform character of the shrinking remainder and append it to the output (Fisher's original method): fair",
        exact: Exact::Walk,
        run: string_method,
    },
    DeckMethod {
        name: "deck-method",
        fairness: Uniform,
        source: "the 52-card deal write-up with a step table (X/Y/Z method: random number, offset, swap)",
        description: "X = random offset below Y, decrement Y, swap items X and Y, skip the swap when X = Y, repeat while Y > 1: Durstenfeld, fair",
        exact: Exact::Walk,
        run: deck_method,
    },
    BasicNaive {
        name: "basic-naive",
        fairness: Biased,
        source: "\"Random BASIC shuffling revisited\", shuffle.bas lines 100-150",
        description: "FOR A=0 TO N-1: S=RND(N)-1: swap A$(S), A$(A) (RND(k) gives 1..k): the naive swap again, biased",
        exact: Exact::Paths(every_position_paths),
        run: naive_swap,
    },
    BasicJj {
        name: "basic-jj",
        fairness: Uniform,
        source: "\"Random BASIC shuffling revisited\", jjshuffle.bas lines 100-150 (after James Jones)",
        description: "FOR I=1 TO N-1: J=I+INT(RND(N+1-I)-1): swap A$(I), A$(J); with RND(k) in 1..k, J is uniform in I..N: fair",
        exact: Exact::Walk,
        run: basic_jj,
    },
    BasicJjShortLoop {
        name: "basic-jj-short-loop",
        fairness: Biased,
        source: "derived from \"Random BASIC shuffling revisited\": jjshuffle.bas with the off-by-one its author made on line 40",
        description: "the corrected loop ending at FOR I=1 TO N-2 (the BASIC write-up's 'FOR A=0 TO 24' slip): the last two items are never exchanged by a final step; only n!/2 orders",
        exact: Exact::Walk,
        run: basic_jj_short_loop,
    },
    BasicJjShortRange {
        name: "basic-jj-short-range",
        fairness: Biased,
        source: "derived from \"Random BASIC shuffling revisited\": jjshuffle.bas with RND's range miscounted by one",
        description: "the corrected loop with RND(N-I) for RND(N+1-I): J never reaches N, so the last item never moves",
        exact: Exact::Walk,
        run: basic_jj_short_range,
    },
    ModuloReduction {
        name: "modulo-reduction",
        fairness: Biased,
        source: "R. L. Rivest, sampler.py, \"Reference implementation code for pseudo-random sampler for election audits or other purposes\", 2011 (SHA-256 mod n); D. Lemire, \"Fast Random Integer Generation in an Interval\", ACM TOMACS 29(1), 2019 (why x mod n is biased)",
        description: "Fisher-Yates whose partner is x mod (i+1) for a random 8-bit word x: when i+1 does not divide 256, the r = 256 mod (i+1) lowest partners get one word more (85 or 86 of 256 for i+1 = 3); real samplers reduce 32-, 64- or 256-bit words, where the same bias is far smaller",
        exact: Exact::Paths(reduction_paths),
        run: modulo_reduction,
    },
    FloatScaling {
        name: "float-scaling",
        fairness: Biased,
        source: "Stake, \"Provably Fair\" documentation (cards: CARDS[floor(float * 52)], the float made of 4 bytes of HMAC-SHA256); D. Lemire, \"Fast Random Integer Generation in an Interval\", ACM TOMACS 29(1), 2019 (why floor(f * n) is biased)",
        description: "Fisher-Yates whose partner is floor(x * (i+1) / 256), i.e. floor(f * (i+1)) of an 8-bit fraction f = x/256 (Stake's floor(f * 52), Math.floor(Math.random() * n)): when i+1 does not divide 256, some partners get one word more; real systems use 32- or 53-bit fractions, where the same bias is far smaller",
        exact: Exact::Paths(reduction_paths),
        run: float_scaling,
    },
}

/// Key width of [`Algorithm::KeyCollisions`].
pub const COLLISION_KEY_BITS: u32 = 8;

/// Paths of [`Algorithm::ModuloReduction`] and [`Algorithm::FloatScaling`]:
/// one word of [`ZOO_WORD_BITS`] bits per step, `n - 1` steps.
fn reduction_paths(n: usize) -> Option<u128> {
    let steps = u32::try_from(n.saturating_sub(1)).ok()?;
    1u128.checked_shl(ZOO_WORD_BITS.checked_mul(steps)?)
}

/// Paths of "swap every position with any position": `n^n`.
fn every_position_paths(n: usize) -> Option<u128> {
    (n as u128).checked_pow(n as u32)
}

/// Paths of [`Algorithm::KeyCollisions`]: one key of
/// [`COLLISION_KEY_BITS`] bits per item.
fn collision_key_paths(n: usize) -> Option<u128> {
    1u128.checked_shl(COLLISION_KEY_BITS * n as u32)
}

impl Algorithm {
    /// Every algorithm of the zoo.
    pub fn all() -> &'static [Algorithm] {
        ALL
    }

    /// The algorithm with this command-line name.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        ALL.iter().copied().find(|a| a.name() == name)
    }

    /// Why exact enumeration is impossible for this algorithm, if it is.
    pub fn exact_unavailable(self) -> Option<&'static str> {
        match self.exact() {
            Exact::Unavailable(why) => Some(why),
            Exact::Walk | Exact::Paths(_) => None,
        }
    }

    /// Shuffles `items` with `rng`, reporting each step to `obs`.
    ///
    /// ```
    /// use knuffle_lab::zoo::{Algorithm, NoObserver};
    /// let mut a: Vec<usize> = (0..10).collect();
    /// let mut b = a.clone();
    /// Algorithm::FisherYates.run(&mut a, &mut knuffle::Seed::from_text("x").rng(), &mut NoObserver);
    /// knuffle::shuffle(&mut b, &mut knuffle::Seed::from_text("x").rng());
    /// assert_eq!(a, b); // word for word the library's shuffle
    /// ```
    #[inline(always)]
    pub fn run<T: Copy, R: Rng + ?Sized, O: Observer>(
        self,
        items: &mut [T],
        rng: &mut R,
        obs: &mut O,
    ) {
        self.run_with(items, &mut RngChoices(rng), obs);
    }
}

/// Durstenfeld 1964: draws (for i = n-1..1) bound i+1, swap i with j.
#[inline(always)]
fn fisher_yates<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    let n = items.len();
    if n < 2 {
        return;
    }
    choices.for_each_below(
        n - 1,
        |step| (n - step) as u64,
        |step, j| {
            let i = n - 1 - step;
            obs.draw((i + 1) as u64, j);
            swap(items, i, j as usize, obs);
        },
    );
}

/// Inside-out (Durstenfeld 1964): in place, the prefix 0..=i is the copy.
#[inline(always)]
fn inside_out<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    choices.for_each_below(
        items.len(),
        |step| step as u64 + 1,
        |i, j| {
            obs.draw(i as u64 + 1, j);
            swap(items, i, j as usize, obs);
        },
    );
}

/// Sattolo 1986: partner from 0..i.
#[inline(always)]
fn sattolo<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    let n = items.len();
    if n < 2 {
        return;
    }
    choices.for_each_below(
        n - 1,
        |step| (n - 1 - step) as u64,
        |step, j| {
            let i = n - 1 - step;
            obs.draw(i as u64, j);
            swap(items, i, j as usize, obs);
        },
    );
}

/// "Swap each position with any position" (the .NET write-up's "How not
/// to shuffle #2", and the BASIC write-up's shuffle.bas).
#[inline(always)]
fn naive_swap<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    let n = items.len();
    for i in 0..n {
        let j = choices.below(n as u64);
        obs.draw(n as u64, j);
        swap(items, i, j as usize, obs);
    }
}

fn sort_keys<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    sort_by_keys(items, choices, obs, 64, |k| k);
}

fn sort_guid<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    sort_by_keys(items, choices, obs, 122, |k| k);
}

fn sort_doubles<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    sort_by_keys(items, choices, obs, 64, |k| double_order(k as u64));
}

fn key_collisions<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    sort_by_keys(items, choices, obs, COLLISION_KEY_BITS, |k| k);
}

/// Durstenfeld's loop with the partner of position `i` made from one
/// [`ZOO_WORD_BITS`]-bit word by `reduction` ([`crate::reduction`]), with
/// no rejection: the bias of Rivest's sampler (modulo) and of Stake's cards
/// (float scaling), on words small enough to see and to enumerate.
#[inline(always)]
fn reduced_fisher_yates<T: Copy, C: Choices, O: Observer>(
    items: &mut [T],
    choices: &mut C,
    obs: &mut O,
    reduction: Reduction,
) {
    for i in (1..items.len()).rev() {
        let bound = i as u64 + 1;
        let word = choices.key(ZOO_WORD_BITS) as u64;
        let j = reduction.apply(word, ZOO_WORD_BITS, bound);
        if !obs.is_quiet() {
            let how = match reduction {
                Reduction::Modulo => format!("{word} mod {bound}"),
                Reduction::FloatScaling => {
                    format!("floor({word} * {bound} / {})", 1u32 << ZOO_WORD_BITS)
                }
            };
            obs.note(&format!(
                "word for position {i}: 0x{word:02x} ({ZOO_WORD_BITS} random bits); partner {how} = {j}"
            ));
        }
        swap(items, i, j as usize, obs);
    }
}

fn modulo_reduction<T: Copy, C: Choices, O: Observer>(
    items: &mut [T],
    choices: &mut C,
    obs: &mut O,
) {
    reduced_fisher_yates(items, choices, obs, Reduction::Modulo);
}

fn float_scaling<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    reduced_fisher_yates(items, choices, obs, Reduction::FloatScaling);
}

fn basic_jj_short_loop<T: Copy, C: Choices, O: Observer>(
    items: &mut [T],
    choices: &mut C,
    obs: &mut O,
) {
    let last = items.len().saturating_sub(2);
    basic_jj_loop(items, choices, obs, last, 0);
}

fn basic_jj_short_range<T: Copy, C: Choices, O: Observer>(
    items: &mut [T],
    choices: &mut C,
    obs: &mut O,
) {
    let last = items.len().saturating_sub(1);
    basic_jj_loop(items, choices, obs, last, 1);
}

fn basic_jj<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    let last = items.len().saturating_sub(1);
    basic_jj_loop(items, choices, obs, last, 0);
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// "How not to shuffle #1" (the .NET harness): card = rand.Next(1, n+1) until not already in the output.
/// The draw is 0-based here (card k is item k); the output is built in
/// place at the front, so the chosen item is swapped forward.
#[inline(never)] // keeps its scratch buffers out of the other algorithms' frames
fn pick_unused<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    let n = items.len();
    if n > 64 {
        // A bitset of 64 is the hot path; larger decks use a vector.
        let mut used = vec![false; n];
        let mut position: Vec<usize> = (0..n).collect();
        let mut at: Vec<usize> = (0..n).collect(); // at[p] = original index at p
        for out in 0..n {
            let card = choices.below_until(
                n as u64,
                |c| !used[c as usize],
                obs,
                "already used: draw again",
            ) as usize;
            used[card] = true;
            let p = position[card];
            let displaced = at[out];
            swap(items, out, p, obs);
            at.swap(out, p);
            position[card] = out;
            position[displaced] = p;
        }
        return;
    }
    let mut used = 0u64;
    let mut position = [0u8; 64];
    let mut at = [0u8; 64];
    for k in 0..n {
        position[k] = k as u8;
        at[k] = k as u8;
    }
    for out in 0..n {
        let card = choices.below_until(
            n as u64,
            |c| used & (1u64 << c) == 0,
            obs,
            "already used: draw again",
        ) as usize;
        used |= 1u64 << card;
        let p = position[card] as usize;
        let displaced = at[out] as usize;
        swap(items, out, p, obs);
        at.swap(out, p);
        position[card] = out as u8;
        position[displaced] = p as u8;
    }
}

/// The VBA string shuffle (FisherYatesStrShuffle): pick a uniform position of the shrinking remainder, append that
/// item to the output. In place: the output is the prefix, the remainder the
/// suffix in its original order, so "take" is a rotation (reported as
/// adjacent swaps). The seed scales `Rnd` (a float); here the draw is
/// `knuffle::below`.
#[inline(never)] // keeps its scratch buffers out of the other algorithms' frames
fn string_method<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    let n = items.len();
    for out in 0..n {
        let remaining = (n - out) as u64;
        let pick = choices.below(remaining) as usize;
        obs.draw(remaining, pick as u64);
        if !obs.is_quiet() {
            obs.note(&format!(
                "take character {} of the {} remaining and append it",
                pick + 1,
                remaining
            ));
        }
        let mut p = out + pick;
        while p > out {
            swap(items, p - 1, p, obs);
            p -= 1;
        }
    }
}

/// The 52-card deal write-up: `X = Fix(Rnd * Y)`, `Y = Y - 1`, swap offsets X and Y (skipped
/// when equal), while Y > 1. The seed scales a float; here X is drawn with
/// `knuffle::below(Y)`.
fn deck_method<T: Copy, C: Choices, O: Observer>(items: &mut [T], choices: &mut C, obs: &mut O) {
    let mut y = items.len();
    while y > 1 {
        let x = choices.below(y as u64) as usize;
        obs.draw(y as u64, x as u64);
        y -= 1;
        if x == y {
            if !obs.is_quiet() {
                obs.note(&format!("X = Y = {y}: no swap"));
            }
        } else {
            swap(items, x, y, obs);
        }
    }
}

/// jjshuffle.bas of "Random BASIC shuffling revisited" on a 1-based array A$(1..N) stored at
/// `items[0..N]`: `FOR I=1 TO last: J=I+INT(RND(N+1-I-short)-1)`, with Color
/// BASIC's `RND(k)` uniform in `1..k` (drawn here as `1 + below(k)`).
fn basic_jj_loop<T: Copy, C: Choices, O: Observer>(
    items: &mut [T],
    choices: &mut C,
    obs: &mut O,
    last: usize,
    short: usize,
) {
    let n = items.len();
    for i in 1..=last {
        let k = n + 1 - i - short;
        if k == 0 {
            break;
        }
        let rnd = 1 + choices.below(k as u64);
        obs.draw(k as u64, rnd - 1);
        let j = i + (rnd as usize - 1);
        swap(items, i - 1, j - 1, obs);
    }
}

#[cfg(test)]
mod tests;
