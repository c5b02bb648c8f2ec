/// Finds the near miss a person most likely meant ("did you mean 'toMany'?").
package enum Suggestion {
    /// The candidate closest to `word`: a case-insensitive match first, then the smallest edit
    /// distance, if that distance is small for the word's length (at most 1 for short words,
    /// 2 from five characters, 3 from nine).
    package static func closest<Candidates: Sequence>(to word: String, in candidates: Candidates) -> String?
    where Candidates.Element == String {
        let lowered = word.lowercased()
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            if candidate.lowercased() == lowered { return candidate }
            let distance = editDistance(lowered, candidate.lowercased())
            if distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        let allowed = word.count >= 9 ? 3 : word.count >= 5 ? 2 : 1
        return best.distance <= allowed ? best.candidate : nil
    }

    /// `"; did you mean 'x'?"` or the empty string.
    package static func didYouMean<Candidates: Sequence>(_ word: String, in candidates: Candidates) -> String
    where Candidates.Element == String {
        closest(to: word, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Damerau–Levenshtein distance (optimal string alignment): a swap of neighbours counts once.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = Swift.min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
