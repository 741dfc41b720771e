package dev.bellows.eval;

/**
 * The unbiased estimators of n runs with c passes: pass@k (Chen et al. 2021, "Evaluating Large
 * Language Models Trained on Code": the chance that at least one of k runs drawn from the n
 * passes) and pass^k (Yao et al. 2024, tau-bench: the chance that all k pass).
 */
public final class PassAtK {

    private PassAtK() {
    }

    /** 1 - C(n-c, k) / C(n, k). */
    public static double passAtK(int n, int c, int k) {
        check(n, c, k);
        if (n - c < k) {
            return 1.0;
        }
        // C(n-c, k) / C(n, k) = prod_{i=n-c+1..n} (1 - k/i), the numerically stable form
        double fail = 1.0;
        for (int i = n - c + 1; i <= n; i++) {
            fail *= 1.0 - (double) k / i;
        }
        return 1.0 - fail;
    }

    /** C(c, k) / C(n, k). */
    public static double passHatK(int n, int c, int k) {
        check(n, c, k);
        if (c < k) {
            return 0.0;
        }
        double all = 1.0;
        for (int i = 0; i < k; i++) {
            all *= (double) (c - i) / (n - i);
        }
        return all;
    }

    private static void check(int n, int c, int k) {
        if (n < 1 || c < 0 || c > n || k < 1 || k > n) {
            throw new IllegalArgumentException("need 0 <= c <= n and 1 <= k <= n, got n=" + n + ", c=" + c + ", k=" + k);
        }
    }
}
