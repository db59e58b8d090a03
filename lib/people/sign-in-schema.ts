import { z } from "zod";

/** The sign-in form, shared by the form resolver and any server-side check. */
export const signInSchema = z.object({
  email: z.string().trim().min(1, "Enter your email").email("Enter a valid email address"),
  password: z.string().min(1, "Enter your password"),
});
export type SignInInput = z.infer<typeof signInSchema>;
