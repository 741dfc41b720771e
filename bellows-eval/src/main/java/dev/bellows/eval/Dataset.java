package dev.bellows.eval;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The cases of a dataset file, in file order.
 *
 * @param source the file it was read from
 * @param cases  its cases, ids unique
 */
public record Dataset(Path source, List<EvalCase> cases) {

    public Dataset {
        Objects.requireNonNull(source, "source");
        cases = List.copyOf(cases);
    }

    /**
     * Reads a dataset (JSONL, or YAML for {@code .yaml} / {@code .yml}) with the built-in {@code expect} keys.
     *
     * @throws DatasetException naming the file, line and field of the first problem
     * @throws IOException      when the file cannot be read
     */
    public static Dataset read(Path file) throws DatasetException, IOException {
        return new DatasetReader().read(file);
    }
}
