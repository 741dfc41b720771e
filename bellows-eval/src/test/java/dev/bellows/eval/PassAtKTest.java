package dev.bellows.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PassAtKTest {

    @Test
    void passAtKIsTheChanceThatOneOfKPasses() {
        assertThat(PassAtK.passAtK(3, 1, 3)).isEqualTo(1.0);
        assertThat(PassAtK.passAtK(3, 0, 3)).isEqualTo(0.0);
        assertThat(PassAtK.passAtK(4, 1, 1)).isCloseTo(0.25, within(1e-12));
        assertThat(PassAtK.passAtK(4, 2, 2)).isCloseTo(1 - 1.0 / 6, within(1e-12));   // 1 - C(2,2)/C(4,2)
    }

    @Test
    void passHatKIsTheChanceThatAllKPass() {
        assertThat(PassAtK.passHatK(3, 3, 3)).isEqualTo(1.0);
        assertThat(PassAtK.passHatK(3, 2, 3)).isEqualTo(0.0);
        assertThat(PassAtK.passHatK(4, 2, 2)).isCloseTo(1.0 / 6, within(1e-12));         // C(2,2)/C(4,2)
        assertThat(PassAtK.passHatK(4, 3, 1)).isCloseTo(0.75, within(1e-12));
    }
}
